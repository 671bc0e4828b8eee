/* Thread-local storage: .tdata initial values, zeroed .tbss, one copy per
 * thread. */
#include <sys/ppu_thread.h>
#include <sys/timer.h>
#include "ps3test.h"

static __thread int tdata_int = 1234;
static __thread uint64_t tdata_wide = 0x1122334455667788ull;
static __thread char tdata_str[16] = "per-thread";
static __thread int tbss_zero[64];
static __thread int counter;

static void worker(uint64_t n)
{
    CHECK_EQ(tdata_int, 1234);
    CHECK_EQ(tdata_wide, 0x1122334455667788ull);
    CHECK_EQ(tdata_str[0], 'p');
    CHECK_EQ(tbss_zero[63], 0);
    CHECK_EQ(counter, 0);
    for (int i = 0; i < 1000; i++) {
        counter++;
        tdata_int += (int)n;
        if ((i & 127) == 0) sys_ppu_thread_yield();
    }
    CHECK_EQ(counter, 1000);
    CHECK_EQ(tdata_int, 1234 + 1000 * (int)n);
    tbss_zero[5] = (int)n;
    sys_timer_usleep(1000);
    CHECK_EQ(tbss_zero[5], (int)n);
    sys_ppu_thread_exit((uint64_t)(uintptr_t)&counter);
}

int main(int argc, char **argv, char **envp)
{
    CHECK_EQ(tdata_int, 1234);
    CHECK_EQ(tdata_str[9], 'd');
    CHECK_EQ(tbss_zero[0], 0);
    tdata_int = 1;
    sys_ppu_thread_t t[4];
    for (int i = 0; i < 4; i++)
        CHECK_EQ(sys_ppu_thread_create(&t[i], worker, i + 1, 1000, 0x10000, SYS_PPU_THREAD_CREATE_JOINABLE, "tls"), CELL_OK);
    uint64_t addr[4];
    for (int i = 0; i < 4; i++) CHECK_EQ(sys_ppu_thread_join(t[i], &addr[i]), CELL_OK);
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++) CHECK(addr[i] != addr[j]);
    CHECK((uintptr_t)&counter != addr[0]);
    CHECK_EQ(tdata_int, 1); /* the main thread's copy is its own */
    CHECK_EQ(counter, 0);
    DONE("tls");
}
