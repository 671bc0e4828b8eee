/* Synchronisation: lightweight mutex and condition (sysPrxForUser), and the
 * kernel mutex, condition, reader/writer lock and semaphore (system calls). */
#ifndef PS3SDK_SYS_SYNCHRONIZATION_H
#define PS3SDK_SYS_SYNCHRONIZATION_H

#include <sys/syscall.h>

#define SYS_SYNC_FIFO 0x1
#define SYS_SYNC_PRIORITY 0x2
#define SYS_SYNC_PRIORITY_INHERIT 0x3
#define SYS_SYNC_RETRY 0x4
#define SYS_SYNC_RECURSIVE 0x10
#define SYS_SYNC_NOT_RECURSIVE 0x20
#define SYS_SYNC_PROCESS_SHARED 0x100
#define SYS_SYNC_NOT_PROCESS_SHARED 0x200
#define SYS_SYNC_ADAPTIVE 0x1000
#define SYS_SYNC_NOT_ADAPTIVE 0x2000
#define SYS_NO_TIMEOUT 0

typedef uint32_t sys_mutex_t;
typedef uint32_t sys_cond_t;
typedef uint32_t sys_rwlock_t;
typedef uint32_t sys_semaphore_t;
typedef int32_t sys_semaphore_value_t;

/* ---- lightweight mutex / condition (sysPrxForUser) ---- */
typedef struct {
    uint32_t protocol;
    uint32_t recursive;
    char name[8];
} sys_lwmutex_attribute_t;

typedef struct {
    volatile uint32_t owner;  /* thread id of the owner, 0xffffffff when free */
    volatile uint32_t waiter;
    uint32_t attribute;
    uint32_t recursive_count;
    uint32_t sleep_queue;     /* the kernel object behind it */
    uint32_t pad;
} __attribute__((aligned(8))) sys_lwmutex_t;

typedef struct {
    char name[8];
} sys_lwcond_attribute_t;

typedef struct {
    ps3_addr_t lwmutex;       /* the sys_lwmutex_t it is used with */
    uint32_t lwcond_queue;    /* the kernel object behind it */
} sys_lwcond_t;

extern int sys_lwmutex_create(sys_lwmutex_t *lwmutex, const sys_lwmutex_attribute_t *attr);
extern int sys_lwmutex_destroy(sys_lwmutex_t *lwmutex);
extern int sys_lwmutex_lock(sys_lwmutex_t *lwmutex, usecond_t timeout);
extern int sys_lwmutex_trylock(sys_lwmutex_t *lwmutex);
extern int sys_lwmutex_unlock(sys_lwmutex_t *lwmutex);
extern int sys_lwcond_create(sys_lwcond_t *lwcond, sys_lwmutex_t *lwmutex,
                             const sys_lwcond_attribute_t *attr);
extern int sys_lwcond_destroy(sys_lwcond_t *lwcond);
extern int sys_lwcond_wait(sys_lwcond_t *lwcond, usecond_t timeout);
extern int sys_lwcond_signal(sys_lwcond_t *lwcond);
extern int sys_lwcond_signal_all(sys_lwcond_t *lwcond);

/* ---- kernel mutex ---- */
typedef struct {
    uint32_t attr_protocol;
    uint32_t attr_recursive;
    uint32_t attr_pshared;
    uint32_t attr_adaptive;
    uint64_t key;
    int32_t flags;
    uint32_t pad;
    char name[8];
} sys_mutex_attribute_t;

static inline void sys_mutex_attribute_initialize(sys_mutex_attribute_t *a)
{
    a->attr_protocol = SYS_SYNC_PRIORITY;
    a->attr_recursive = SYS_SYNC_NOT_RECURSIVE;
    a->attr_pshared = SYS_SYNC_NOT_PROCESS_SHARED;
    a->attr_adaptive = SYS_SYNC_NOT_ADAPTIVE;
    a->key = 0;
    a->flags = 0;
    a->pad = 0;
    for (int i = 0; i < 8; i++) a->name[i] = 0;
}
static inline int sys_mutex_create(sys_mutex_t *id, const sys_mutex_attribute_t *attr)
{
    return (int)ps3_syscall2(SYS_MUTEX_CREATE, PS3_ADDR(id), PS3_ADDR(attr));
}
static inline int sys_mutex_destroy(sys_mutex_t id) { return (int)ps3_syscall1(SYS_MUTEX_DESTROY, id); }
static inline int sys_mutex_lock(sys_mutex_t id, usecond_t timeout)
{
    return (int)ps3_syscall2(SYS_MUTEX_LOCK, id, timeout);
}
static inline int sys_mutex_trylock(sys_mutex_t id) { return (int)ps3_syscall1(SYS_MUTEX_TRYLOCK, id); }
static inline int sys_mutex_unlock(sys_mutex_t id) { return (int)ps3_syscall1(SYS_MUTEX_UNLOCK, id); }

/* ---- kernel condition ---- */
typedef struct {
    uint32_t attr_pshared;
    int32_t flags;
    uint64_t key;
    char name[8];
} sys_cond_attribute_t;

static inline int sys_cond_create(sys_cond_t *id, sys_mutex_t mutex, const sys_cond_attribute_t *attr)
{
    return (int)ps3_syscall3(SYS_COND_CREATE, PS3_ADDR(id), mutex, PS3_ADDR(attr));
}
static inline int sys_cond_destroy(sys_cond_t id) { return (int)ps3_syscall1(SYS_COND_DESTROY, id); }
static inline int sys_cond_wait(sys_cond_t id, usecond_t timeout)
{
    return (int)ps3_syscall2(SYS_COND_WAIT, id, timeout);
}
static inline int sys_cond_signal(sys_cond_t id) { return (int)ps3_syscall1(SYS_COND_SIGNAL, id); }
static inline int sys_cond_signal_all(sys_cond_t id) { return (int)ps3_syscall1(SYS_COND_SIGNAL_ALL, id); }
static inline int sys_cond_signal_to(sys_cond_t id, uint32_t thread)
{
    return (int)ps3_syscall2(SYS_COND_SIGNAL_TO, id, thread);
}

/* ---- reader/writer lock ---- */
typedef struct {
    uint32_t attr_protocol;
    uint32_t attr_pshared;
    uint64_t key;
    int32_t flags;
    uint32_t pad;
    char name[8];
} sys_rwlock_attribute_t;

static inline int sys_rwlock_create(sys_rwlock_t *id, const sys_rwlock_attribute_t *attr)
{
    return (int)ps3_syscall2(SYS_RWLOCK_CREATE, PS3_ADDR(id), PS3_ADDR(attr));
}
static inline int sys_rwlock_destroy(sys_rwlock_t id) { return (int)ps3_syscall1(SYS_RWLOCK_DESTROY, id); }
static inline int sys_rwlock_rlock(sys_rwlock_t id, usecond_t timeout)
{
    return (int)ps3_syscall2(SYS_RWLOCK_RLOCK, id, timeout);
}
static inline int sys_rwlock_tryrlock(sys_rwlock_t id) { return (int)ps3_syscall1(SYS_RWLOCK_TRYRLOCK, id); }
static inline int sys_rwlock_runlock(sys_rwlock_t id) { return (int)ps3_syscall1(SYS_RWLOCK_RUNLOCK, id); }
static inline int sys_rwlock_wlock(sys_rwlock_t id, usecond_t timeout)
{
    return (int)ps3_syscall2(SYS_RWLOCK_WLOCK, id, timeout);
}
static inline int sys_rwlock_trywlock(sys_rwlock_t id) { return (int)ps3_syscall1(SYS_RWLOCK_TRYWLOCK, id); }
static inline int sys_rwlock_wunlock(sys_rwlock_t id) { return (int)ps3_syscall1(SYS_RWLOCK_WUNLOCK, id); }

/* ---- semaphore ---- */
typedef struct {
    uint32_t attr_protocol;
    uint32_t attr_pshared;
    uint64_t key;
    int32_t flags;
    uint32_t pad;
    char name[8];
} sys_semaphore_attribute_t;

static inline int sys_semaphore_create(sys_semaphore_t *id, const sys_semaphore_attribute_t *attr,
                                       sys_semaphore_value_t initial, sys_semaphore_value_t max)
{
    return (int)ps3_syscall4(SYS_SEMAPHORE_CREATE, PS3_ADDR(id), PS3_ADDR(attr), initial, max);
}
static inline int sys_semaphore_destroy(sys_semaphore_t id) { return (int)ps3_syscall1(SYS_SEMAPHORE_DESTROY, id); }
static inline int sys_semaphore_wait(sys_semaphore_t id, usecond_t timeout)
{
    return (int)ps3_syscall2(SYS_SEMAPHORE_WAIT, id, timeout);
}
static inline int sys_semaphore_trywait(sys_semaphore_t id) { return (int)ps3_syscall1(SYS_SEMAPHORE_TRYWAIT, id); }
static inline int sys_semaphore_post(sys_semaphore_t id, sys_semaphore_value_t count)
{
    return (int)ps3_syscall2(SYS_SEMAPHORE_POST, id, count);
}
static inline int sys_semaphore_get_value(sys_semaphore_t id, sys_semaphore_value_t *val)
{
    return (int)ps3_syscall2(SYS_SEMAPHORE_GET_VALUE, id, PS3_ADDR(val));
}

#endif
