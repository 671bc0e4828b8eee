/* LV2 system calls: `sc` with the number in r11, arguments in r3..r10,
 * the result in r3 (some calls return more in r4..r7). Volatile registers
 * are clobbered as the ABI allows. */
#ifndef PS3SDK_SYS_SYSCALL_H
#define PS3SDK_SYS_SYSCALL_H

#include <sys/types.h>

/* The result registers r3..r7 of one system call. */
typedef struct { uint64_t r3, r4, r5, r6, r7; } ps3_sc_result_t;

static inline ps3_sc_result_t ps3_syscall_full(uint64_t n, uint64_t a1, uint64_t a2, uint64_t a3,
                                               uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7,
                                               uint64_t a8)
{
    register uint64_t r3 __asm__("r3") = a1;
    register uint64_t r4 __asm__("r4") = a2;
    register uint64_t r5 __asm__("r5") = a3;
    register uint64_t r6 __asm__("r6") = a4;
    register uint64_t r7 __asm__("r7") = a5;
    register uint64_t r8 __asm__("r8") = a6;
    register uint64_t r9 __asm__("r9") = a7;
    register uint64_t r10 __asm__("r10") = a8;
    register uint64_t r11 __asm__("r11") = n;
    __asm__ volatile("sc"
                     : "+r"(r3), "+r"(r4), "+r"(r5), "+r"(r6), "+r"(r7), "+r"(r8), "+r"(r9),
                       "+r"(r10), "+r"(r11)
                     :
                     : "r0", "r12", "ctr", "xer", "cr0", "cr1", "cr5", "cr6", "cr7", "memory");
    ps3_sc_result_t r = {r3, r4, r5, r6, r7};
    return r;
}

static inline uint64_t ps3_syscall8(uint64_t n, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
                                    uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8)
{
    return ps3_syscall_full(n, a1, a2, a3, a4, a5, a6, a7, a8).r3;
}

#define ps3_syscall0(n) ps3_syscall8((n), 0, 0, 0, 0, 0, 0, 0, 0)
#define ps3_syscall1(n, a) ps3_syscall8((n), (uint64_t)(a), 0, 0, 0, 0, 0, 0, 0)
#define ps3_syscall2(n, a, b) ps3_syscall8((n), (uint64_t)(a), (uint64_t)(b), 0, 0, 0, 0, 0, 0)
#define ps3_syscall3(n, a, b, c) \
    ps3_syscall8((n), (uint64_t)(a), (uint64_t)(b), (uint64_t)(c), 0, 0, 0, 0, 0)
#define ps3_syscall4(n, a, b, c, d) \
    ps3_syscall8((n), (uint64_t)(a), (uint64_t)(b), (uint64_t)(c), (uint64_t)(d), 0, 0, 0, 0)
#define ps3_syscall5(n, a, b, c, d, e)                                                   \
    ps3_syscall8((n), (uint64_t)(a), (uint64_t)(b), (uint64_t)(c), (uint64_t)(d), \
                 (uint64_t)(e), 0, 0, 0)
#define ps3_syscall6(n, a, b, c, d, e, f)                                                \
    ps3_syscall8((n), (uint64_t)(a), (uint64_t)(b), (uint64_t)(c), (uint64_t)(d), \
                 (uint64_t)(e), (uint64_t)(f), 0, 0)

/* System call numbers (the public record: RPCS3's lv2.cpp table). */
#define SYS_PROCESS_GETPID 1
#define SYS_PROCESS_EXIT 3
#define SYS_PROCESS_GET_SDK_VERSION 25
#define SYS_PPU_THREAD_EXIT 41
#define SYS_PPU_THREAD_YIELD 43
#define SYS_PPU_THREAD_JOIN 44
#define SYS_PPU_THREAD_DETACH 45
#define SYS_PPU_THREAD_GET_JOIN_STATE 46
#define SYS_PPU_THREAD_SET_PRIORITY 47
#define SYS_PPU_THREAD_GET_PRIORITY 48
#define SYS_PPU_THREAD_GET_STACK_INFORMATION 49
#define SYS_PPU_THREAD_RENAME 56
#define SYS_TIMER_CREATE 70
#define SYS_TIMER_DESTROY 71
#define SYS_TIMER_GET_INFORMATION 72
#define SYS_TIMER_START 73
#define SYS_TIMER_STOP 74
#define SYS_TIMER_CONNECT_EVENT_QUEUE 75
#define SYS_TIMER_DISCONNECT_EVENT_QUEUE 76
#define SYS_EVENT_FLAG_CREATE 82
#define SYS_EVENT_FLAG_DESTROY 83
#define SYS_EVENT_FLAG_WAIT 85
#define SYS_EVENT_FLAG_TRYWAIT 86
#define SYS_EVENT_FLAG_SET 87
#define SYS_SEMAPHORE_CREATE 90
#define SYS_SEMAPHORE_DESTROY 91
#define SYS_SEMAPHORE_WAIT 92
#define SYS_SEMAPHORE_TRYWAIT 93
#define SYS_SEMAPHORE_POST 94
#define SYS_MUTEX_CREATE 100
#define SYS_MUTEX_DESTROY 101
#define SYS_MUTEX_LOCK 102
#define SYS_MUTEX_TRYLOCK 103
#define SYS_MUTEX_UNLOCK 104
#define SYS_COND_CREATE 105
#define SYS_COND_DESTROY 106
#define SYS_COND_WAIT 107
#define SYS_COND_SIGNAL 108
#define SYS_COND_SIGNAL_ALL 109
#define SYS_COND_SIGNAL_TO 110
#define SYS_SEMAPHORE_GET_VALUE 114
#define SYS_EVENT_FLAG_CLEAR 118
#define SYS_RWLOCK_CREATE 120
#define SYS_RWLOCK_DESTROY 121
#define SYS_RWLOCK_RLOCK 122
#define SYS_RWLOCK_TRYRLOCK 123
#define SYS_RWLOCK_RUNLOCK 124
#define SYS_RWLOCK_WLOCK 125
#define SYS_RWLOCK_TRYWLOCK 126
#define SYS_RWLOCK_WUNLOCK 127
#define SYS_EVENT_QUEUE_CREATE 128
#define SYS_EVENT_QUEUE_DESTROY 129
#define SYS_EVENT_QUEUE_RECEIVE 130
#define SYS_EVENT_QUEUE_TRYRECEIVE 131
#define SYS_EVENT_FLAG_CANCEL 132
#define SYS_EVENT_QUEUE_DRAIN 133
#define SYS_EVENT_PORT_CREATE 134
#define SYS_EVENT_PORT_DESTROY 135
#define SYS_EVENT_PORT_CONNECT_LOCAL 136
#define SYS_EVENT_PORT_DISCONNECT 137
#define SYS_EVENT_PORT_SEND 138
#define SYS_EVENT_FLAG_GET 139
#define SYS_TIMER_USLEEP 141
#define SYS_TIMER_SLEEP 142
#define SYS_TIME_GET_TIMEZONE 144
#define SYS_TIME_GET_CURRENT_TIME 145
#define SYS_TIME_GET_TIMEBASE_FREQUENCY 147
#define SYS_MEMORY_CONTAINER_CREATE 341
#define SYS_MEMORY_CONTAINER_DESTROY 342
#define SYS_MEMORY_CONTAINER_GET_SIZE 343
#define SYS_MEMORY_ALLOCATE 348
#define SYS_MEMORY_FREE 349
#define SYS_MEMORY_ALLOCATE_FROM_CONTAINER 350
#define SYS_MEMORY_GET_PAGE_ATTRIBUTE 351
#define SYS_MEMORY_GET_USER_MEMORY_SIZE 352
#define SYS_TTY_READ 402
#define SYS_TTY_WRITE 403
#define SYS_FS_OPEN 801
#define SYS_FS_READ 802
#define SYS_FS_WRITE 803
#define SYS_FS_CLOSE 804
#define SYS_FS_OPENDIR 805
#define SYS_FS_READDIR 806
#define SYS_FS_CLOSEDIR 807
#define SYS_FS_STAT 808
#define SYS_FS_FSTAT 809
#define SYS_FS_MKDIR 811
#define SYS_FS_RENAME 812
#define SYS_FS_RMDIR 813
#define SYS_FS_UNLINK 814
#define SYS_FS_LSEEK 818
#define SYS_FS_FSYNC 820
#define SYS_FS_TRUNCATE 831
#define SYS_FS_FTRUNCATE 832

#endif
