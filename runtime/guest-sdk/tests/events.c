/* Event flags, event queues and ports, timers, sleeping and time. */
#include <sys/event.h>
#include <sys/ppu_thread.h>
#include <sys/process.h>
#include <sys/sys_time.h>
#include <sys/timer.h>
#include <string.h>
#include "ps3test.h"

static sys_event_flag_t flag;
static volatile int woken;

static void flag_waiter(uint64_t bits)
{
    uint64_t result = 0;
    CHECK_EQ(sys_event_flag_wait(flag, bits, SYS_EVENT_FLAG_WAIT_AND | SYS_EVENT_FLAG_WAIT_CLEAR, &result, 0), CELL_OK);
    CHECK_EQ(result & bits, bits);
    __atomic_add_fetch(&woken, 1, __ATOMIC_SEQ_CST);
    sys_ppu_thread_exit(0);
}

static void flag_canceled(uint64_t bits)
{
    uint64_t result;
    CHECK_EQ(sys_event_flag_wait(flag, bits, SYS_EVENT_FLAG_WAIT_OR, &result, 0), CELL_ECANCELED);
    sys_ppu_thread_exit(0);
}

static sys_event_queue_t queue;
static sys_event_port_t port;

static void receiver(uint64_t n)
{
    uint64_t sum = 0;
    for (uint64_t i = 0; i < n; i++) {
        sys_event_t ev;
        CHECK_EQ(sys_event_queue_receive(queue, &ev, 0), CELL_OK);
        CHECK_EQ(ev.source, 0x1234);
        sum += ev.data1 + ev.data2 + ev.data3;
    }
    sys_ppu_thread_exit(sum);
}

static void canceled_receiver(uint64_t n)
{
    sys_event_t ev;
    CHECK_EQ(sys_event_queue_receive(queue, &ev, 0), CELL_ECANCELED);
    sys_ppu_thread_exit(0);
}

static void join(sys_ppu_thread_t t, uint64_t *v)
{
    uint64_t x;
    CHECK_EQ(sys_ppu_thread_join(t, v ? v : &x), CELL_OK);
}

int main(int argc, char **argv, char **envp)
{
    /* ---- event flag ---- */
    sys_event_flag_attribute_t fa;
    memset(&fa, 0, sizeof fa);
    fa.attr_protocol = SYS_SYNC_PRIORITY;
    fa.attr_pshared = SYS_SYNC_NOT_PROCESS_SHARED;
    fa.type = SYS_SYNC_WAITER_MULTIPLE;
    CHECK_EQ(sys_event_flag_create(&flag, &fa, 0x5), CELL_OK);
    uint64_t r;
    CHECK_EQ(sys_event_flag_trywait(flag, 0x3, SYS_EVENT_FLAG_WAIT_AND, &r), CELL_EBUSY);
    CHECK_EQ(sys_event_flag_trywait(flag, 0x3, SYS_EVENT_FLAG_WAIT_OR, &r), CELL_OK);
    CHECK_EQ(r, 0x5);
    CHECK_EQ(sys_event_flag_trywait(flag, 0x3, SYS_EVENT_FLAG_WAIT_AND | SYS_EVENT_FLAG_WAIT_OR, &r), CELL_EINVAL);
    CHECK_EQ(sys_event_flag_clear(flag, 0x4), CELL_OK); /* keeps 0x4 only */
    CHECK_EQ(sys_event_flag_get(flag, &r), CELL_OK);
    CHECK_EQ(r, 0x4);
    system_time_t t0 = sys_time_get_system_time();
    CHECK_EQ(sys_event_flag_wait(flag, 0x1, SYS_EVENT_FLAG_WAIT_AND, &r, 2000), CELL_ETIMEDOUT);
    CHECK(sys_time_get_system_time() - t0 >= 2000);
    sys_ppu_thread_t ft[3];
    for (int i = 0; i < 3; i++)
        CHECK_EQ(sys_ppu_thread_create(&ft[i], flag_waiter, 0x10ull << i, 1000, 0x10000, SYS_PPU_THREAD_CREATE_JOINABLE, "fw"), CELL_OK);
    sys_timer_usleep(5000);
    CHECK_EQ(sys_event_flag_destroy(flag), CELL_EBUSY);
    CHECK_EQ(sys_event_flag_set(flag, 0x10 | 0x20 | 0x40), CELL_OK);
    for (int i = 0; i < 3; i++) join(ft[i], 0);
    CHECK_EQ(woken, 3);
    CHECK_EQ(sys_event_flag_get(flag, &r), CELL_OK);
    CHECK_EQ(r, 0x4); /* each waiter cleared its bits */
    sys_ppu_thread_t cw[2];
    for (int i = 0; i < 2; i++)
        CHECK_EQ(sys_ppu_thread_create(&cw[i], flag_canceled, 0x100, 1000, 0x10000, SYS_PPU_THREAD_CREATE_JOINABLE, "fc"), CELL_OK);
    sys_timer_usleep(5000);
    int num = -1;
    CHECK_EQ(sys_event_flag_cancel(flag, &num), CELL_OK);
    CHECK_EQ(num, 2);
    for (int i = 0; i < 2; i++) join(cw[i], 0);
    CHECK_EQ(sys_event_flag_destroy(flag), CELL_OK);
    fa.type = SYS_SYNC_WAITER_SINGLE;
    CHECK_EQ(sys_event_flag_create(&flag, &fa, 0), CELL_OK);
    CHECK_EQ(sys_event_flag_destroy(flag), CELL_OK);
    fa.type = 7;
    CHECK_EQ(sys_event_flag_create(&flag, &fa, 0), CELL_EINVAL);

    /* ---- event queue and port ---- */
    sys_event_queue_attribute_t qa = {SYS_SYNC_FIFO, SYS_PPU_QUEUE, "evq"};
    CHECK_EQ(sys_event_queue_create(&queue, &qa, SYS_EVENT_QUEUE_LOCAL, 0), CELL_EINVAL);
    CHECK_EQ(sys_event_queue_create(&queue, &qa, SYS_EVENT_QUEUE_LOCAL, 4), CELL_OK);
    CHECK_EQ(sys_event_port_create(&port, 7, 0), CELL_EINVAL);
    CHECK_EQ(sys_event_port_create(&port, SYS_EVENT_PORT_LOCAL, 0x1234), CELL_OK);
    CHECK_EQ(sys_event_port_send(port, 1, 2, 3), CELL_ENOTCONN);
    CHECK_EQ(sys_event_port_connect_local(port, queue), CELL_OK);
    CHECK_EQ(sys_event_port_connect_local(port, queue), CELL_EISCONN);
    for (int i = 0; i < 4; i++) CHECK_EQ(sys_event_port_send(port, i, 0, 0), CELL_OK);
    CHECK_EQ(sys_event_port_send(port, 9, 9, 9), CELL_EBUSY); /* full */
    sys_event_t evs[8];
    int n = -1;
    CHECK_EQ(sys_event_queue_tryreceive(queue, evs, 8, &n), CELL_OK);
    CHECK_EQ(n, 4);
    CHECK_EQ(evs[3].data1, 3);
    CHECK_EQ(evs[0].source, 0x1234);
    sys_event_t ev;
    CHECK_EQ(sys_event_queue_receive(queue, &ev, 1500), CELL_ETIMEDOUT);
    sys_ppu_thread_t rt;
    CHECK_EQ(sys_ppu_thread_create(&rt, receiver, 10, 1000, 0x10000, SYS_PPU_THREAD_CREATE_JOINABLE, "recv"), CELL_OK);
    uint64_t want = 0;
    for (uint64_t i = 0; i < 10; i++) {
        while (sys_event_port_send(port, i, 2 * i, 3 * i) == CELL_EBUSY) sys_timer_usleep(100);
        want += 6 * i;
    }
    uint64_t got;
    join(rt, &got);
    CHECK_EQ(got, want);
    CHECK_EQ(sys_event_port_destroy(port), CELL_EISCONN);
    CHECK_EQ(sys_event_port_disconnect(port), CELL_OK);
    CHECK_EQ(sys_event_port_disconnect(port), CELL_ENOTCONN);
    CHECK_EQ(sys_event_port_destroy(port), CELL_OK);
    /* An unnamed port's events name the process and the port. */
    sys_event_port_t anon;
    CHECK_EQ(sys_event_port_create(&anon, SYS_EVENT_PORT_LOCAL, SYS_EVENT_PORT_NO_NAME), CELL_OK);
    CHECK_EQ(sys_event_port_connect_local(anon, queue), CELL_OK);
    CHECK_EQ(sys_event_port_send(anon, 5, 6, 7), CELL_OK);
    CHECK_EQ(sys_event_queue_receive(queue, &ev, 0), CELL_OK);
    CHECK_EQ(ev.source, ((uint64_t)sys_process_getpid() << 32) | anon);
    CHECK_EQ(ev.data3, 7);
    sys_event_port_disconnect(anon);
    sys_event_port_destroy(anon);
    /* Destroying a queue with a receiver: EBUSY, or with FORCE, ECANCELED. */
    CHECK_EQ(sys_ppu_thread_create(&rt, canceled_receiver, 0, 1000, 0x10000, SYS_PPU_THREAD_CREATE_JOINABLE, "recv2"), CELL_OK);
    sys_timer_usleep(5000);
    CHECK_EQ(sys_event_queue_destroy(queue, 0), CELL_EBUSY);
    CHECK_EQ(sys_event_queue_destroy(queue, SYS_EVENT_QUEUE_DESTROY_FORCE), CELL_OK);
    join(rt, 0);
    CHECK_EQ(sys_event_queue_receive(queue, &ev, 0), CELL_ESRCH);

    /* ---- timer ---- */
    CHECK_EQ(sys_event_queue_create(&queue, &qa, SYS_EVENT_QUEUE_LOCAL, 16), CELL_OK);
    sys_timer_t timer;
    CHECK_EQ(sys_timer_create(&timer), CELL_OK);
    CHECK_EQ(sys_timer_start_periodic(timer, 2000), CELL_ENOTCONN);
    CHECK_EQ(sys_timer_connect_event_queue(timer, queue, 0xAB, 11, 22), CELL_OK);
    CHECK_EQ(sys_timer_start_periodic(timer, 50), CELL_EINVAL);
    t0 = sys_time_get_system_time();
    CHECK_EQ(sys_timer_start_periodic(timer, 2000), CELL_OK);
    CHECK_EQ(sys_timer_start_periodic(timer, 2000), CELL_EBUSY);
    uint64_t last = 0;
    for (int i = 0; i < 5; i++) {
        CHECK_EQ(sys_event_queue_receive(queue, &ev, 1000000), CELL_OK);
        CHECK_EQ(ev.source, 0xAB);
        CHECK_EQ(ev.data1, 11);
        CHECK_EQ(ev.data2, 22);
        CHECK(ev.data3 > last); /* expiry times increase */
        last = ev.data3;
    }
    CHECK(sys_time_get_system_time() - t0 >= 5 * 2000);
    sys_timer_information_t info;
    CHECK_EQ(sys_timer_get_information(timer, &info), CELL_OK);
    CHECK_EQ(info.timer_state, SYS_TIMER_STATE_RUN);
    CHECK_EQ(info.period, 2000);
    CHECK_EQ(sys_timer_stop(timer), CELL_OK);
    CHECK_EQ(sys_timer_get_information(timer, &info), CELL_OK);
    CHECK_EQ(info.timer_state, SYS_TIMER_STATE_STOP);
    CHECK_EQ(sys_timer_destroy(timer), CELL_EISCONN);
    CHECK_EQ(sys_timer_disconnect_event_queue(timer), CELL_OK);
    CHECK_EQ(sys_timer_destroy(timer), CELL_OK);
    sys_event_queue_destroy(queue, SYS_EVENT_QUEUE_DESTROY_FORCE);

    /* ---- sleeping and time ---- */
    CHECK_EQ(sys_time_get_timebase_frequency(), 79800000);
    for (int us = 1; us <= 4096; us *= 4) {
        system_time_t a = sys_time_get_system_time();
        uint64_t tb = ps3_mftb();
        CHECK_EQ(sys_timer_usleep(us), CELL_OK);
        system_time_t b = sys_time_get_system_time();
        CHECK(b - a >= us);
        CHECK(ps3_mftb() - tb >= (uint64_t)us * 79); /* 79.8 ticks a microsecond */
    }
    int64_t sec = 0, nsec = -1;
    CHECK_EQ(sys_time_get_current_time(&sec, &nsec), CELL_OK);
    CHECK(sec > 1600000000); /* after 2020 */
    CHECK(nsec >= 0 && nsec < 1000000000);
    int tz, dst;
    CHECK_EQ(sys_time_get_timezone(&tz, &dst), CELL_OK);
    CHECK(tz >= -12 * 60 && tz <= 14 * 60);
    DONE("events");
}
