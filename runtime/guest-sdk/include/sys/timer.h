/* Sleeping and timers (system calls). */
#ifndef PS3SDK_SYS_TIMER_H
#define PS3SDK_SYS_TIMER_H

#include <sys/syscall.h>

typedef uint32_t sys_timer_t;

typedef struct {
    uint64_t next_expiration_time; /* microseconds of system time */
    uint64_t period;
    uint32_t timer_state;          /* SYS_TIMER_STATE_STOP / _RUN */
    uint32_t pad;
} sys_timer_information_t;

#define SYS_TIMER_STATE_STOP 0
#define SYS_TIMER_STATE_RUN 1

static inline int sys_timer_usleep(usecond_t usec) { return (int)ps3_syscall1(SYS_TIMER_USLEEP, usec); }
static inline int sys_timer_sleep(second_t sec) { return (int)ps3_syscall1(SYS_TIMER_SLEEP, sec); }
static inline int sys_timer_create(sys_timer_t *id) { return (int)ps3_syscall1(SYS_TIMER_CREATE, PS3_ADDR(id)); }
static inline int sys_timer_destroy(sys_timer_t id) { return (int)ps3_syscall1(SYS_TIMER_DESTROY, id); }
static inline int sys_timer_get_information(sys_timer_t id, sys_timer_information_t *info)
{
    return (int)ps3_syscall2(SYS_TIMER_GET_INFORMATION, id, PS3_ADDR(info));
}
/* base_time 0: first expiry one period from now. */
static inline int sys_timer_start_periodic_absolute(sys_timer_t id, uint64_t base_time, uint64_t period)
{
    return (int)ps3_syscall3(SYS_TIMER_START, id, base_time, period);
}
static inline int sys_timer_start_periodic(sys_timer_t id, uint64_t period)
{
    return (int)ps3_syscall3(SYS_TIMER_START, id, 0, period);
}
static inline int sys_timer_start_oneshot(sys_timer_t id, uint64_t when)
{
    return (int)ps3_syscall3(SYS_TIMER_START, id, when, 0);
}
static inline int sys_timer_stop(sys_timer_t id) { return (int)ps3_syscall1(SYS_TIMER_STOP, id); }
static inline int sys_timer_connect_event_queue(sys_timer_t id, uint32_t queue, uint64_t name,
                                                uint64_t data1, uint64_t data2)
{
    return (int)ps3_syscall5(SYS_TIMER_CONNECT_EVENT_QUEUE, id, queue, name, data1, data2);
}
static inline int sys_timer_disconnect_event_queue(sys_timer_t id)
{
    return (int)ps3_syscall1(SYS_TIMER_DISCONNECT_EVENT_QUEUE, id);
}

#endif
