/* The TTY channels (system calls). Channel 0 is standard output. */
#ifndef PS3SDK_SYS_TTY_H
#define PS3SDK_SYS_TTY_H

#include <sys/syscall.h>

#define SYS_TTY_CHANNEL_STDOUT 0

static inline int sys_tty_write(unsigned int ch, const void *buf, unsigned int len, unsigned int *pwritelen)
{
    return (int)ps3_syscall4(SYS_TTY_WRITE, ch, PS3_ADDR(buf), len, PS3_ADDR(pwritelen));
}
static inline int sys_tty_read(unsigned int ch, void *buf, unsigned int len, unsigned int *preadlen)
{
    return (int)ps3_syscall4(SYS_TTY_READ, ch, PS3_ADDR(buf), len, PS3_ADDR(preadlen));
}

#endif
