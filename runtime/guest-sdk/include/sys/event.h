/* Event queues, event ports and event flags (system calls). */
#ifndef PS3SDK_SYS_EVENT_H
#define PS3SDK_SYS_EVENT_H

#include <sys/synchronization.h>

typedef uint32_t sys_event_queue_t;
typedef uint32_t sys_event_port_t;
typedef uint32_t sys_event_flag_t;

typedef struct {
    uint64_t source;
    uint64_t data1;
    uint64_t data2;
    uint64_t data3;
} sys_event_t;

typedef struct {
    uint32_t attr_protocol;
    int32_t type;          /* SYS_PPU_QUEUE or SYS_SPU_QUEUE */
    char name[8];
} sys_event_queue_attribute_t;

#define SYS_PPU_QUEUE 1
#define SYS_SPU_QUEUE 2
#define SYS_EVENT_QUEUE_LOCAL 0
#define SYS_EVENT_QUEUE_DESTROY_FORCE 1
#define SYS_EVENT_PORT_LOCAL 1
#define SYS_EVENT_PORT_NO_NAME 0

static inline int sys_event_queue_create(sys_event_queue_t *id, const sys_event_queue_attribute_t *attr,
                                         sys_ipc_key_t key, int size)
{
    return (int)ps3_syscall4(SYS_EVENT_QUEUE_CREATE, PS3_ADDR(id), PS3_ADDR(attr), key, size);
}
static inline int sys_event_queue_destroy(sys_event_queue_t id, int mode)
{
    return (int)ps3_syscall2(SYS_EVENT_QUEUE_DESTROY, id, mode);
}
/* LV2 returns the event in r4..r7; the wrapper stores it. */
static inline int sys_event_queue_receive(sys_event_queue_t id, sys_event_t *event, usecond_t timeout)
{
    ps3_sc_result_t r = ps3_syscall_full(SYS_EVENT_QUEUE_RECEIVE, id, PS3_ADDR(event), timeout,
                                         0, 0, 0, 0, 0);
    if ((int)r.r3 == CELL_OK && event) {
        event->source = r.r4;
        event->data1 = r.r5;
        event->data2 = r.r6;
        event->data3 = r.r7;
    }
    return (int)r.r3;
}
static inline int sys_event_queue_tryreceive(sys_event_queue_t id, sys_event_t *events, int size,
                                             int *number)
{
    return (int)ps3_syscall4(SYS_EVENT_QUEUE_TRYRECEIVE, id, PS3_ADDR(events), size, PS3_ADDR(number));
}
static inline int sys_event_queue_drain(sys_event_queue_t id)
{
    return (int)ps3_syscall1(SYS_EVENT_QUEUE_DRAIN, id);
}
static inline int sys_event_port_create(sys_event_port_t *id, int type, uint64_t name)
{
    return (int)ps3_syscall3(SYS_EVENT_PORT_CREATE, PS3_ADDR(id), type, name);
}
static inline int sys_event_port_destroy(sys_event_port_t id) { return (int)ps3_syscall1(SYS_EVENT_PORT_DESTROY, id); }
static inline int sys_event_port_connect_local(sys_event_port_t port, sys_event_queue_t queue)
{
    return (int)ps3_syscall2(SYS_EVENT_PORT_CONNECT_LOCAL, port, queue);
}
static inline int sys_event_port_disconnect(sys_event_port_t port)
{
    return (int)ps3_syscall1(SYS_EVENT_PORT_DISCONNECT, port);
}
static inline int sys_event_port_send(sys_event_port_t port, uint64_t d1, uint64_t d2, uint64_t d3)
{
    return (int)ps3_syscall4(SYS_EVENT_PORT_SEND, port, d1, d2, d3);
}

/* ---- event flag ---- */
typedef struct {
    uint32_t attr_protocol;
    uint32_t attr_pshared;
    uint64_t key;
    int32_t flags;
    int32_t type;          /* SYS_SYNC_WAITER_SINGLE or _MULTIPLE */
    char name[8];
} sys_event_flag_attribute_t;

#define SYS_SYNC_WAITER_SINGLE 0x10000
#define SYS_SYNC_WAITER_MULTIPLE 0x20000
#define SYS_EVENT_FLAG_WAIT_AND 0x01
#define SYS_EVENT_FLAG_WAIT_OR 0x02
#define SYS_EVENT_FLAG_WAIT_CLEAR 0x10
#define SYS_EVENT_FLAG_WAIT_CLEAR_ALL 0x20

static inline int sys_event_flag_create(sys_event_flag_t *id, const sys_event_flag_attribute_t *attr,
                                        uint64_t init)
{
    return (int)ps3_syscall3(SYS_EVENT_FLAG_CREATE, PS3_ADDR(id), PS3_ADDR(attr), init);
}
static inline int sys_event_flag_destroy(sys_event_flag_t id) { return (int)ps3_syscall1(SYS_EVENT_FLAG_DESTROY, id); }
static inline int sys_event_flag_wait(sys_event_flag_t id, uint64_t bitptn, uint32_t mode,
                                      uint64_t *result, usecond_t timeout)
{
    return (int)ps3_syscall5(SYS_EVENT_FLAG_WAIT, id, bitptn, mode, PS3_ADDR(result), timeout);
}
static inline int sys_event_flag_trywait(sys_event_flag_t id, uint64_t bitptn, uint32_t mode,
                                         uint64_t *result)
{
    return (int)ps3_syscall4(SYS_EVENT_FLAG_TRYWAIT, id, bitptn, mode, PS3_ADDR(result));
}
static inline int sys_event_flag_set(sys_event_flag_t id, uint64_t bitptn)
{
    return (int)ps3_syscall2(SYS_EVENT_FLAG_SET, id, bitptn);
}
static inline int sys_event_flag_clear(sys_event_flag_t id, uint64_t bitptn)
{
    return (int)ps3_syscall2(SYS_EVENT_FLAG_CLEAR, id, bitptn);
}
static inline int sys_event_flag_cancel(sys_event_flag_t id, int *num)
{
    return (int)ps3_syscall2(SYS_EVENT_FLAG_CANCEL, id, PS3_ADDR(num));
}
static inline int sys_event_flag_get(sys_event_flag_t id, uint64_t *flags)
{
    return (int)ps3_syscall2(SYS_EVENT_FLAG_GET, id, PS3_ADDR(flags));
}

#endif
