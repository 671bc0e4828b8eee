/* Synchronisation: kernel mutex, condition, reader/writer lock and
 * semaphore (system calls), lightweight mutex and condition
 * (sysPrxForUser), with threads contending and their error codes. */
#include <sys/ppu_thread.h>
#include <sys/synchronization.h>
#include <sys/sys_time.h>
#include <sys/timer.h>
#include <string.h>
#include "ps3test.h"

static sys_mutex_t mtx;
static sys_cond_t cnd;
static volatile int stage, in_section, max_in_section, total;

static void mutex_worker(uint64_t n)
{
    for (int i = 0; i < 200; i++) {
        CHECK_EQ(sys_mutex_lock(mtx, 0), CELL_OK);
        int now = ++in_section;
        if (now > max_in_section) max_in_section = now;
        total++;
        in_section--;
        CHECK_EQ(sys_mutex_unlock(mtx), CELL_OK);
    }
    sys_ppu_thread_exit(n);
}

/* Producer/consumer over a condition variable. */
#define ITEMS 100
static int queue[8];
static volatile int qhead, qtail, consumed_sum;

static void consumer(uint64_t n)
{
    for (int i = 0; i < ITEMS; i++) {
        sys_mutex_lock(mtx, 0);
        while (qhead == qtail) CHECK_EQ(sys_cond_wait(cnd, 0), CELL_OK);
        consumed_sum += queue[qhead % 8];
        qhead++;
        sys_cond_signal_all(cnd);
        sys_mutex_unlock(mtx);
    }
    sys_ppu_thread_exit(0);
}

static sys_lwmutex_t lw;
static sys_lwcond_t lwc;
static volatile int lw_flag;

static void lw_waiter(uint64_t n)
{
    CHECK_EQ(sys_lwmutex_lock(&lw, 0), CELL_OK);
    while (!lw_flag) CHECK_EQ(sys_lwcond_wait(&lwc, 0), CELL_OK);
    sys_ppu_thread_t me;
    sys_ppu_thread_get_id(&me);
    CHECK_EQ(lw.owner, (uint32_t)me); /* the lwmutex is ours again */
    lw_flag++;
    CHECK_EQ(sys_lwmutex_unlock(&lw), CELL_OK);
    sys_ppu_thread_exit(0);
}

static sys_rwlock_t rw;
static volatile int readers_in, max_readers, writer_in;

static void reader(uint64_t n)
{
    for (int i = 0; i < 50; i++) {
        CHECK_EQ(sys_rwlock_rlock(rw, 0), CELL_OK);
        int r = __atomic_add_fetch(&readers_in, 1, __ATOMIC_SEQ_CST);
        if (r > max_readers) max_readers = r;
        CHECK_EQ(writer_in, 0);
        sys_timer_usleep(20);
        __atomic_sub_fetch(&readers_in, 1, __ATOMIC_SEQ_CST);
        CHECK_EQ(sys_rwlock_runlock(rw), CELL_OK);
    }
    sys_ppu_thread_exit(0);
}

static void writer(uint64_t n)
{
    for (int i = 0; i < 20; i++) {
        CHECK_EQ(sys_rwlock_wlock(rw, 0), CELL_OK);
        writer_in = 1;
        CHECK_EQ(readers_in, 0);
        sys_timer_usleep(10);
        writer_in = 0;
        CHECK_EQ(sys_rwlock_wunlock(rw), CELL_OK);
    }
    sys_ppu_thread_exit(0);
}

static sys_semaphore_t sem;

static void sem_poster(uint64_t n)
{
    sys_timer_usleep(2000);
    CHECK_EQ(sys_semaphore_post(sem, 2), CELL_OK);
    sys_ppu_thread_exit(0);
}

static void join(sys_ppu_thread_t t)
{
    uint64_t v;
    CHECK_EQ(sys_ppu_thread_join(t, &v), CELL_OK);
}

int main(int argc, char **argv, char **envp)
{
    sys_mutex_attribute_t ma;
    sys_mutex_attribute_initialize(&ma);
    CHECK_EQ(sys_mutex_create(&mtx, &ma), CELL_OK);
    /* Non-recursive: relock is EDEADLK, unlock by a non-owner EPERM. */
    CHECK_EQ(sys_mutex_lock(mtx, 0), CELL_OK);
    CHECK_EQ(sys_mutex_lock(mtx, 0), CELL_EDEADLK);
    CHECK_EQ(sys_mutex_trylock(mtx), CELL_EDEADLK);
    CHECK_EQ(sys_mutex_destroy(mtx), CELL_EBUSY);
    CHECK_EQ(sys_mutex_unlock(mtx), CELL_OK);
    CHECK_EQ(sys_mutex_unlock(mtx), CELL_EPERM);
    /* Contention. */
    sys_ppu_thread_t t[4];
    for (int i = 0; i < 4; i++)
        CHECK_EQ(sys_ppu_thread_create(&t[i], mutex_worker, i, 1000, 0x10000, SYS_PPU_THREAD_CREATE_JOINABLE, "mw"), CELL_OK);
    for (int i = 0; i < 4; i++) join(t[i]);
    CHECK_EQ(total, 800);
    CHECK_EQ(max_in_section, 1);
    /* A timed lock that cannot succeed times out after the time asked. */
    CHECK_EQ(sys_mutex_lock(mtx, 0), CELL_OK);
    {
        static sys_mutex_t m2;
        sys_mutex_attribute_t a2;
        sys_mutex_attribute_initialize(&a2);
        a2.attr_recursive = SYS_SYNC_RECURSIVE;
        CHECK_EQ(sys_mutex_create(&m2, &a2), CELL_OK);
        CHECK_EQ(sys_mutex_lock(m2, 0), CELL_OK);
        CHECK_EQ(sys_mutex_lock(m2, 0), CELL_OK);
        CHECK_EQ(sys_mutex_trylock(m2), CELL_OK);
        CHECK_EQ(sys_mutex_unlock(m2), CELL_OK);
        CHECK_EQ(sys_mutex_unlock(m2), CELL_OK);
        CHECK_EQ(sys_mutex_unlock(m2), CELL_OK);
        CHECK_EQ(sys_mutex_unlock(m2), CELL_EPERM);
        CHECK_EQ(sys_mutex_destroy(m2), CELL_OK);
        CHECK_EQ(sys_mutex_lock(m2, 0), CELL_ESRCH);
        a2.attr_protocol = 9;
        CHECK_EQ(sys_mutex_create(&m2, &a2), CELL_EINVAL);
    }
    CHECK_EQ(sys_mutex_unlock(mtx), CELL_OK);

    /* Condition: producer/consumer. */
    sys_cond_attribute_t ca;
    memset(&ca, 0, sizeof ca);
    ca.attr_pshared = SYS_SYNC_NOT_PROCESS_SHARED;
    CHECK_EQ(sys_cond_create(&cnd, mtx, &ca), CELL_OK);
    CHECK_EQ(sys_cond_wait(cnd, 0), CELL_EPERM); /* the mutex is not ours */
    CHECK_EQ(sys_mutex_destroy(mtx), CELL_EPERM);  /* a condition uses it */
    sys_ppu_thread_t ct;
    CHECK_EQ(sys_ppu_thread_create(&ct, consumer, 0, 1000, 0x10000, SYS_PPU_THREAD_CREATE_JOINABLE, "consumer"), CELL_OK);
    int produced_sum = 0;
    for (int i = 0; i < ITEMS; i++) {
        sys_mutex_lock(mtx, 0);
        while (qtail - qhead == 8) sys_cond_wait(cnd, 0);
        queue[qtail % 8] = i * 3;
        produced_sum += i * 3;
        qtail++;
        sys_cond_signal(cnd);
        sys_mutex_unlock(mtx);
    }
    join(ct);
    CHECK_EQ(consumed_sum, produced_sum);
    /* A condition wait with a timeout returns ETIMEDOUT with the mutex held. */
    sys_mutex_lock(mtx, 0);
    system_time_t t0 = sys_time_get_system_time();
    CHECK_EQ(sys_cond_wait(cnd, 3000), CELL_ETIMEDOUT);
    CHECK(sys_time_get_system_time() - t0 >= 3000);
    CHECK_EQ(sys_mutex_unlock(mtx), CELL_OK);
    CHECK_EQ(sys_cond_destroy(cnd), CELL_OK);
    CHECK_EQ(sys_mutex_destroy(mtx), CELL_OK);

    /* Lightweight mutex and condition. */
    sys_lwmutex_attribute_t la = {SYS_SYNC_PRIORITY, SYS_SYNC_NOT_RECURSIVE, "lwm"};
    CHECK_EQ(sys_lwmutex_create(&lw, &la), CELL_OK);
    CHECK_EQ(lw.owner, 0xFFFFFFFFu);
    CHECK_EQ(sys_lwmutex_lock(&lw, 0), CELL_OK);
    sys_ppu_thread_t me;
    sys_ppu_thread_get_id(&me);
    CHECK_EQ(lw.owner, (uint32_t)me);
    CHECK_EQ(lw.recursive_count, 1);
    CHECK_EQ(sys_lwmutex_lock(&lw, 0), CELL_EDEADLK);
    CHECK_EQ(sys_lwmutex_trylock(&lw), CELL_EDEADLK);
    CHECK_EQ(sys_lwmutex_destroy(&lw), CELL_EBUSY);
    CHECK_EQ(sys_lwmutex_unlock(&lw), CELL_OK);
    CHECK_EQ(lw.owner, 0xFFFFFFFFu);
    CHECK_EQ(sys_lwmutex_unlock(&lw), CELL_EPERM);
    sys_lwcond_attribute_t lca = {"lwc"};
    CHECK_EQ(sys_lwcond_create(&lwc, &lw, &lca), CELL_OK);
    CHECK_EQ((uint32_t)lwc.lwmutex, PS3_ADDR(&lw));
    sys_ppu_thread_t w[3];
    for (int i = 0; i < 3; i++)
        CHECK_EQ(sys_ppu_thread_create(&w[i], lw_waiter, i, 1000, 0x10000, SYS_PPU_THREAD_CREATE_JOINABLE, "lww"), CELL_OK);
    sys_timer_usleep(5000);
    sys_lwmutex_lock(&lw, 0);
    lw_flag = 1;
    CHECK_EQ(sys_lwcond_signal_all(&lwc), CELL_OK);
    sys_lwmutex_unlock(&lw);
    for (int i = 0; i < 3; i++) join(w[i]);
    CHECK_EQ(lw_flag, 4);
    sys_lwmutex_lock(&lw, 0);
    CHECK_EQ(sys_lwcond_wait(&lwc, 2000), CELL_ETIMEDOUT);
    CHECK_EQ(lw.owner, (uint32_t)me);
    sys_lwmutex_unlock(&lw);
    CHECK_EQ(sys_lwcond_destroy(&lwc), CELL_OK);
    CHECK_EQ(sys_lwmutex_destroy(&lw), CELL_OK);
    CHECK_EQ(sys_lwmutex_lock(&lw, 0), CELL_ESRCH);
    sys_lwmutex_attribute_t lr = {SYS_SYNC_FIFO, SYS_SYNC_RECURSIVE, "lwr"};
    CHECK_EQ(sys_lwmutex_create(&lw, &lr), CELL_OK);
    CHECK_EQ(sys_lwmutex_lock(&lw, 0), CELL_OK);
    CHECK_EQ(sys_lwmutex_lock(&lw, 0), CELL_OK);
    CHECK_EQ(lw.recursive_count, 2);
    sys_lwmutex_unlock(&lw);
    sys_lwmutex_unlock(&lw);
    CHECK_EQ(sys_lwmutex_destroy(&lw), CELL_OK);

    /* Reader/writer lock. */
    sys_rwlock_attribute_t ra;
    memset(&ra, 0, sizeof ra);
    ra.attr_protocol = SYS_SYNC_PRIORITY;
    ra.attr_pshared = SYS_SYNC_NOT_PROCESS_SHARED;
    CHECK_EQ(sys_rwlock_create(&rw, &ra), CELL_OK);
    CHECK_EQ(sys_rwlock_runlock(rw), CELL_EPERM);
    CHECK_EQ(sys_rwlock_wlock(rw, 0), CELL_OK);
    CHECK_EQ(sys_rwlock_wlock(rw, 0), CELL_EDEADLK);
    CHECK_EQ(sys_rwlock_tryrlock(rw), CELL_EDEADLK);
    CHECK_EQ(sys_rwlock_destroy(rw), CELL_EBUSY);
    CHECK_EQ(sys_rwlock_wunlock(rw), CELL_OK);
    CHECK_EQ(sys_rwlock_wunlock(rw), CELL_EPERM);
    sys_ppu_thread_t rt[4];
    for (int i = 0; i < 3; i++)
        CHECK_EQ(sys_ppu_thread_create(&rt[i], reader, i, 1000, 0x10000, SYS_PPU_THREAD_CREATE_JOINABLE, "reader"), CELL_OK);
    CHECK_EQ(sys_ppu_thread_create(&rt[3], writer, 0, 1000, 0x10000, SYS_PPU_THREAD_CREATE_JOINABLE, "writer"), CELL_OK);
    for (int i = 0; i < 4; i++) join(rt[i]);
    CHECK(max_readers >= 1);
    CHECK_EQ(sys_rwlock_destroy(rw), CELL_OK);

    /* Semaphore. */
    sys_semaphore_attribute_t sa;
    memset(&sa, 0, sizeof sa);
    sa.attr_protocol = SYS_SYNC_PRIORITY;
    sa.attr_pshared = SYS_SYNC_NOT_PROCESS_SHARED;
    CHECK_EQ(sys_semaphore_create(&sem, &sa, 3, 2), CELL_EINVAL);
    CHECK_EQ(sys_semaphore_create(&sem, &sa, 1, 3), CELL_OK);
    CHECK_EQ(sys_semaphore_trywait(sem), CELL_OK);
    CHECK_EQ(sys_semaphore_trywait(sem), CELL_EBUSY);
    t0 = sys_time_get_system_time();
    CHECK_EQ(sys_semaphore_wait(sem, 2000), CELL_ETIMEDOUT);
    CHECK(sys_time_get_system_time() - t0 >= 2000);
    sys_ppu_thread_t pt;
    CHECK_EQ(sys_ppu_thread_create(&pt, sem_poster, 0, 1000, 0x10000, SYS_PPU_THREAD_CREATE_JOINABLE, "poster"), CELL_OK);
    CHECK_EQ(sys_semaphore_wait(sem, 0), CELL_OK); /* woken by the post */
    join(pt);
    sys_semaphore_value_t val = -1;
    CHECK_EQ(sys_semaphore_get_value(sem, &val), CELL_OK);
    CHECK_EQ(val, 1);
    CHECK_EQ(sys_semaphore_post(sem, 3), CELL_EBUSY);
    CHECK_EQ(sys_semaphore_post(sem, -1), CELL_EINVAL);
    CHECK_EQ(sys_semaphore_post(sem, 2), CELL_OK);
    CHECK_EQ(sys_semaphore_destroy(sem), CELL_OK);
    CHECK_EQ(sys_semaphore_post(sem, 1), CELL_ESRCH);
    DONE("sync");
}
