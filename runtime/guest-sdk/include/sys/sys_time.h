/* Time: system time, wall clock, the time base. */
#ifndef PS3SDK_SYS_SYS_TIME_H
#define PS3SDK_SYS_SYS_TIME_H

#include <sys/syscall.h>

/* sysPrxForUser: microseconds since the process started. */
extern system_time_t sys_time_get_system_time(void);

static inline int sys_time_get_current_time(int64_t *sec, int64_t *nsec)
{
    return (int)ps3_syscall2(SYS_TIME_GET_CURRENT_TIME, PS3_ADDR(sec), PS3_ADDR(nsec));
}
static inline uint64_t sys_time_get_timebase_frequency(void)
{
    return ps3_syscall0(SYS_TIME_GET_TIMEBASE_FREQUENCY);
}
static inline int sys_time_get_timezone(int *timezone, int *summertime)
{
    return (int)ps3_syscall2(SYS_TIME_GET_TIMEZONE, PS3_ADDR(timezone), PS3_ADDR(summertime));
}
/* The time base register (79.8 MHz on the PS3). */
static inline uint64_t ps3_mftb(void)
{
    uint64_t tb;
    __asm__ volatile("mftb %0" : "=r"(tb));
    return tb;
}

#endif
