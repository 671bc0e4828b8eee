/* Bad guest pointers given to system calls and HLE functions: each gets
 * CELL_EFAULT and the program runs on. */
#include <cell/cell_fs.h>
#include <cell/pad.h>
#include <cell/sysutil.h>
#include <sys/event.h>
#include <sys/memory.h>
#include <sys/ppu_thread.h>
#include <sys/synchronization.h>
#include <sys/tty.h>
#include "ps3test.h"

static void exit_entry(uint64_t a) { sys_ppu_thread_exit(a); }

#define UNMAPPED ((void *)0xDEAD0000)
#define READ_ONLY ((void *)0x10000) /* the code segment */

int main(int argc, char **argv, char **envp)
{
    unsigned int w = 0;
    CHECK_EQ(sys_tty_write(0, UNMAPPED, 4, &w), CELL_EFAULT);
    CHECK_EQ(sys_tty_write(0, "ok\n", 3, UNMAPPED), CELL_EFAULT);
    CHECK_EQ(sys_tty_write(0, "ok\n", 3, READ_ONLY), CELL_EFAULT);
    sys_mutex_attribute_t ma;
    sys_mutex_attribute_initialize(&ma);
    sys_mutex_t m;
    CHECK_EQ(sys_mutex_create(UNMAPPED, &ma), CELL_EFAULT);
    CHECK_EQ(sys_mutex_create(&m, UNMAPPED), CELL_EFAULT);
    CHECK_EQ(sys_mutex_create((sys_mutex_t *)0, &ma), CELL_EFAULT);
    sys_addr_t addr;
    CHECK_EQ(sys_memory_allocate(0x100000, SYS_MEMORY_PAGE_SIZE_1M, UNMAPPED), CELL_EFAULT);
    CHECK_EQ(sys_memory_allocate(0x100000, SYS_MEMORY_PAGE_SIZE_1M, &addr), CELL_OK);
    CHECK_EQ(sys_memory_free(addr), CELL_OK);
    CHECK_EQ(sys_lwmutex_create(UNMAPPED, 0), CELL_EFAULT);
    CHECK_EQ(sys_lwmutex_lock(UNMAPPED, 0), CELL_EFAULT);
    sys_event_queue_t q;
    sys_event_queue_attribute_t qa = {SYS_SYNC_FIFO, SYS_PPU_QUEUE, "q"};
    CHECK_EQ(sys_event_queue_create(&q, UNMAPPED, 0, 4), CELL_EFAULT);
    int fd;
    CHECK_EQ(cellFsOpen(UNMAPPED, CELL_FS_O_RDONLY, &fd, 0, 0), CELL_EFAULT);
    CHECK_EQ(cellFsOpen("/dev_hdd0", CELL_FS_O_RDONLY, UNMAPPED, 0, 0), CELL_EFAULT);
    CellFsStat st;
    CHECK_EQ(cellFsStat("/", UNMAPPED), CELL_EFAULT);
    CHECK_EQ(cellFsStat("/", &st), CELL_OK);
    sys_ppu_thread_t t;
    CHECK_EQ(__raw_sys_ppu_thread_create(&t, 0xDEAD0000, 0, 1000, 0x10000, 0, "x"), CELL_EFAULT);
    CHECK_EQ(sys_ppu_thread_create(UNMAPPED, exit_entry, 0, 1000, 0x10000, 0, "x"), CELL_EFAULT);
    CHECK_EQ(sys_ppu_thread_get_stack_information(UNMAPPED), CELL_EFAULT);
    CHECK_EQ(cellSysutilGetSystemParamInt(CELL_SYSUTIL_SYSTEMPARAM_ID_LANG, UNMAPPED), CELL_EFAULT);
    CHECK_EQ(cellPadInit(1), CELL_OK);
    CHECK_EQ(cellPadGetData(0, 0), CELL_PAD_ERROR_INVALID_PARAMETER);
    CHECK_EQ(cellPadGetData(0, UNMAPPED), CELL_EFAULT);
    /* A string that runs off the end of mapped memory. */
    CHECK_EQ(cellFsMkdir((const char *)0x3FFFFFFF, 0), CELL_EFAULT);
    sys_event_queue_create(&q, &qa, 0, 4);
    DONE("badptr");
}
