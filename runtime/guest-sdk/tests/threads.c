/* PPU threads: create, exit values, join, detach, priorities, stack
 * information, yield, and many threads updating shared memory with
 * lwarx/stwcx. (GCC's atomics). */
#include <sys/ppu_thread.h>
#include <sys/process.h>
#include <sys/timer.h>
#include "ps3test.h"

static volatile int counter;

static void worker(uint64_t arg)
{
    __atomic_add_fetch(&counter, (int)arg, __ATOMIC_SEQ_CST);
    sys_ppu_thread_exit(arg * 10);
}

static void prio_check(uint64_t arg)
{
    sys_ppu_thread_t me;
    CHECK_EQ(sys_ppu_thread_get_id(&me), CELL_OK);
    int prio = -1;
    CHECK_EQ(sys_ppu_thread_get_priority(me, &prio), CELL_OK);
    CHECK_EQ(prio, (int)arg);
    sys_ppu_thread_stack_t st;
    CHECK_EQ(sys_ppu_thread_get_stack_information(&st), CELL_OK);
    int local = 0;
    CHECK((uintptr_t)&local >= st.pst_addr && (uintptr_t)&local < st.pst_addr + st.pst_size);
    CHECK(st.pst_size >= 0x10000);
    CHECK(sys_process_is_stack((uint32_t)(uintptr_t)&local));
    sys_ppu_thread_exit(me);
}

#define ADDERS 4
#define ADDS 20000
static volatile uint64_t shared_sum;

static void adder(uint64_t arg)
{
    for (int i = 0; i < ADDS; i++) __atomic_add_fetch(&shared_sum, 1, __ATOMIC_SEQ_CST);
    if (arg & 1) sys_ppu_thread_yield();
    sys_ppu_thread_exit(0);
}

static void sleeper(uint64_t arg)
{
    sys_timer_usleep(arg);
    sys_ppu_thread_exit(7);
}

int main(int argc, char **argv, char **envp)
{
    sys_ppu_thread_t t[8];
    for (int i = 0; i < 8; i++)
        CHECK_EQ(sys_ppu_thread_create(&t[i], worker, i + 1, 1000, 0x10000, SYS_PPU_THREAD_CREATE_JOINABLE, "worker"), CELL_OK);
    for (int i = 0; i < 8; i++) {
        uint64_t v = 0;
        CHECK_EQ(sys_ppu_thread_join(t[i], &v), CELL_OK);
        CHECK_EQ(v, (uint64_t)(i + 1) * 10);
    }
    CHECK_EQ(counter, 36);
    CHECK(t[0] != t[1]);

    sys_ppu_thread_t me;
    uint64_t v;
    CHECK_EQ(sys_ppu_thread_get_id(&me), CELL_OK);
    CHECK_EQ(sys_ppu_thread_join(me, &v), CELL_EDEADLK);
    CHECK_EQ(sys_ppu_thread_join(0x0dead, &v), CELL_ESRCH);
    CHECK_EQ(sys_ppu_thread_join(t[0], &v), CELL_ESRCH); /* already joined */

    sys_ppu_thread_t bad;
    CHECK_EQ(sys_ppu_thread_create(&bad, worker, 0, 3072, 0x10000, SYS_PPU_THREAD_CREATE_JOINABLE, "bad"), CELL_EINVAL);
    CHECK_EQ(sys_ppu_thread_create(&bad, worker, 0, -1, 0x10000, SYS_PPU_THREAD_CREATE_JOINABLE, "bad"), CELL_EINVAL);

    sys_ppu_thread_t pc;
    CHECK_EQ(sys_ppu_thread_create(&pc, prio_check, 1500, 1500, 0x20000, SYS_PPU_THREAD_CREATE_JOINABLE, "prio"), CELL_OK);
    CHECK_EQ(sys_ppu_thread_join(pc, &v), CELL_OK);
    CHECK_EQ(v, pc); /* the thread saw its own id */

    int prio;
    CHECK_EQ(sys_ppu_thread_set_priority(me, 1200), CELL_OK);
    CHECK_EQ(sys_ppu_thread_get_priority(me, &prio), CELL_OK);
    CHECK_EQ(prio, 1200);
    CHECK_EQ(sys_ppu_thread_set_priority(me, 4000), CELL_EINVAL);
    CHECK_EQ(sys_ppu_thread_get_priority(0x0dead, &prio), CELL_ESRCH);

    int joinable = -1;
    CHECK_EQ(sys_ppu_thread_get_join_state(&joinable), CELL_OK);
    CHECK_EQ(joinable, 0); /* the main thread is not joinable */

    /* A thread created without JOINABLE, and one detached, cannot be joined. */
    sys_ppu_thread_t d1, d2;
    CHECK_EQ(sys_ppu_thread_create(&d1, sleeper, 20000, 1000, 0x10000, 0, "detached"), CELL_OK);
    CHECK_EQ(sys_ppu_thread_join(d1, &v), CELL_EINVAL);
    CHECK_EQ(sys_ppu_thread_create(&d2, sleeper, 20000, 1000, 0x10000, SYS_PPU_THREAD_CREATE_JOINABLE, "detach-me"), CELL_OK);
    CHECK_EQ(sys_ppu_thread_detach(d2), CELL_OK);
    CHECK_EQ(sys_ppu_thread_join(d2, &v), CELL_EINVAL);
    CHECK_EQ(sys_ppu_thread_detach(d2), CELL_EINVAL);

    sys_ppu_thread_t a[ADDERS];
    for (int i = 0; i < ADDERS; i++)
        CHECK_EQ(sys_ppu_thread_create(&a[i], adder, i, 1000 + i, 0x10000, SYS_PPU_THREAD_CREATE_JOINABLE, "adder"), CELL_OK);
    for (int i = 0; i < ADDERS; i++) CHECK_EQ(sys_ppu_thread_join(a[i], &v), CELL_OK);
    CHECK_EQ(shared_sum, (uint64_t)ADDERS * ADDS);
    sys_ppu_thread_yield();
    DONE("threads");
}
