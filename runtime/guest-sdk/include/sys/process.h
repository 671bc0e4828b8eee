/* Process: exit, pid, SDK version, process parameters. */
#ifndef PS3SDK_SYS_PROCESS_H
#define PS3SDK_SYS_PROCESS_H

#include <sys/syscall.h>

/* The .sys_proc_param record (LV2 reads it through PT_PROC_PARAM). */
typedef struct {
    uint32_t size;            /* sizeof: 0x20 */
    uint32_t magic;           /* 0x13bcc5f6 */
    uint32_t version;         /* 0x00009000 */
    uint32_t sdk_version;
    int32_t primary_prio;     /* main thread priority, 0..3071 */
    uint32_t primary_stacksize; /* bytes, or one of SYS_PROCESS_PRIMARY_STACK_SIZE_* */
    uint32_t malloc_pagesize;
    uint32_t ppc_seg;
} sys_process_param_t;

#define SYS_PROCESS_PARAM_MAGIC 0x13bcc5f6
#define SYS_PROCESS_PARAM_VERSION 0x00009000
#define PS3SDK_SDK_VERSION 0x00360001
#define SYS_PROCESS_PRIMARY_STACK_SIZE_32K 0x10
#define SYS_PROCESS_PRIMARY_STACK_SIZE_64K 0x20
#define SYS_PROCESS_PRIMARY_STACK_SIZE_96K 0x30
#define SYS_PROCESS_PRIMARY_STACK_SIZE_128K 0x40
#define SYS_PROCESS_PRIMARY_STACK_SIZE_256K 0x50
#define SYS_PROCESS_PRIMARY_STACK_SIZE_512K 0x60
#define SYS_PROCESS_PRIMARY_STACK_SIZE_1M 0x70

/* Declares the program's process parameters (main thread priority and
 * stack size). Without it ps3cc links the default: 1001, 1 MiB. */
#define SYS_PROCESS_PARAM(prio, stacksize)                                                   \
    const sys_process_param_t __sys_process_param                                           \
        __attribute__((aligned(8), section(".sys_proc_param"), used)) = {                   \
            sizeof(sys_process_param_t), SYS_PROCESS_PARAM_MAGIC, SYS_PROCESS_PARAM_VERSION, \
            PS3SDK_SDK_VERSION, (prio), (stacksize), 0x00100000, 0};

/* sysPrxForUser */
extern void sys_process_exit(int status) PS3_NORETURN;
/* Whether `addr` is in a PPU thread's stack. */
extern int sys_process_is_stack(uint32_t addr);

static inline sys_pid_t sys_process_getpid(void)
{
    return (sys_pid_t)ps3_syscall0(SYS_PROCESS_GETPID);
}

static inline int sys_process_get_sdk_version(sys_pid_t pid, uint32_t *version)
{
    return (int)ps3_syscall2(SYS_PROCESS_GET_SDK_VERSION, pid, PS3_ADDR(version));
}

#endif
