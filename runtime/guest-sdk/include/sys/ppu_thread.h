/* PPU threads. */
#ifndef PS3SDK_SYS_PPU_THREAD_H
#define PS3SDK_SYS_PPU_THREAD_H

#include <sys/syscall.h>

typedef uint64_t sys_ppu_thread_t;

typedef struct {
    ps3_addr_t pst_addr;  /* lowest address of the stack */
    uint32_t pst_size;
} sys_ppu_thread_stack_t;

#define SYS_PPU_THREAD_CREATE_JOINABLE 0x1
#define SYS_PPU_THREAD_CREATE_INTERRUPT 0x2

/* sysPrxForUser (the raw export takes the entry's PS3 descriptor) */
extern int __raw_sys_ppu_thread_create(sys_ppu_thread_t *thread_id, ps3_addr_t entry_opd,
                                       uint64_t arg, int prio, size_t stacksize, uint64_t flags,
                                       const char *threadname);
extern void sys_ppu_thread_exit(uint64_t val) PS3_NORETURN;
extern int sys_ppu_thread_get_id(sys_ppu_thread_t *thread_id);

static inline int sys_ppu_thread_create(sys_ppu_thread_t *thread_id, void (*entry)(uint64_t),
                                        uint64_t arg, int prio, size_t stacksize,
                                        uint64_t flags, const char *threadname)
{
    return __raw_sys_ppu_thread_create(thread_id, PS3_OPD32(entry), arg, prio, stacksize, flags,
                                       threadname);
}

static inline int sys_ppu_thread_join(sys_ppu_thread_t thread_id, uint64_t *vptr)
{
    return (int)ps3_syscall2(SYS_PPU_THREAD_JOIN, thread_id, PS3_ADDR(vptr));
}
static inline int sys_ppu_thread_detach(sys_ppu_thread_t thread_id)
{
    return (int)ps3_syscall1(SYS_PPU_THREAD_DETACH, thread_id);
}
static inline void sys_ppu_thread_yield(void) { ps3_syscall0(SYS_PPU_THREAD_YIELD); }
static inline int sys_ppu_thread_get_join_state(int *isjoinable)
{
    return (int)ps3_syscall1(SYS_PPU_THREAD_GET_JOIN_STATE, PS3_ADDR(isjoinable));
}
static inline int sys_ppu_thread_set_priority(sys_ppu_thread_t thread_id, int prio)
{
    return (int)ps3_syscall2(SYS_PPU_THREAD_SET_PRIORITY, thread_id, prio);
}
static inline int sys_ppu_thread_get_priority(sys_ppu_thread_t thread_id, int *prio)
{
    return (int)ps3_syscall2(SYS_PPU_THREAD_GET_PRIORITY, thread_id, PS3_ADDR(prio));
}
static inline int sys_ppu_thread_get_stack_information(sys_ppu_thread_stack_t *info)
{
    return (int)ps3_syscall1(SYS_PPU_THREAD_GET_STACK_INFORMATION, PS3_ADDR(info));
}
static inline int sys_ppu_thread_rename(sys_ppu_thread_t thread_id, const char *name)
{
    return (int)ps3_syscall2(SYS_PPU_THREAD_RENAME, thread_id, PS3_ADDR(name));
}

#endif
