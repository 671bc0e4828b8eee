/* cellGcm and the RSX FIFO: init with the IO map and local memory, the
 * reference, command and back-end labels, a wait on a label, display
 * buffers and flips (status, time, handler), command buffer wrap-around,
 * IO offsets. */
#include <cell/gcm.h>
#include <sys/memory.h>
#include <sys/sys_time.h>
#include <sys/timer.h>
#include "ps3test.h"

static volatile int flip_handler_calls;
static void on_flip(uint32_t head) { flip_handler_calls++; }

/* Waits up to a second for *p == v. */
static int wait_for(volatile uint32_t *p, uint32_t v)
{
    for (int i = 0; i < 10000; i++) {
        if (*p == v) return 1;
        sys_timer_usleep(100);
    }
    return 0;
}

int main(int argc, char **argv, char **envp)
{
    sys_addr_t io = 0;
    CHECK_EQ(sys_memory_allocate(0x100000, SYS_MEMORY_PAGE_SIZE_1M, &io), CELL_OK);
    CHECK_EQ(cellGcmInit(0x10000, 0x100000, PS3_PTR(io + 0x10)), CELL_GCM_ERROR_FAILURE); /* not aligned */
    CHECK_EQ(cellGcmInit(0x10000, 0x100000, PS3_PTR(io)), CELL_OK);
    CellGcmContextData *ctx = gCellGcmCurrentContext;
    CHECK(ctx != 0);
    CHECK_EQ(ctx->begin, io + 0x1000);
    CellGcmConfig cfg;
    cellGcmGetConfiguration(&cfg);
    CHECK_EQ(cfg.localAddress, 0xC0000000u);
    CHECK_EQ(cfg.localSize, 0x10000000u);
    CHECK_EQ(cfg.ioAddress, io);
    CHECK_EQ(cfg.ioSize, 0x100000);
    CellGcmControl *ctrl = cellGcmGetControl();

    /* The reference. */
    cellGcmSetReferenceCommand(ctx, 0x42);
    cellGcmFlush(ctx);
    CHECK(wait_for(&ctrl->ref, 0x42));
    CHECK_EQ(ctrl->get, ctrl->put);

    /* Labels. */
    volatile uint32_t *l64 = PS3_PTR(cellGcmGetLabelAddress(64));
    volatile uint32_t *l65 = PS3_PTR(cellGcmGetLabelAddress(65));
    volatile uint32_t *l66 = PS3_PTR(cellGcmGetLabelAddress(66));
    CHECK_EQ((uintptr_t)l65 - (uintptr_t)l64, 0x10);
    *l64 = 0;
    *l65 = 0;
    *l66 = 0;
    cellGcmSetWriteCommandLabel(ctx, 64, 0xCAFEBABE);
    cellGcmSetWriteBackEndLabel(ctx, 65, 0x11223344);
    cellGcmFlush(ctx);
    CHECK(wait_for(l64, 0xCAFEBABE));
    CHECK(wait_for(l65, 0x11223344));
    /* The RSX waits on label 66 before it sets the reference. */
    cellGcmSetWaitLabel(ctx, 66, 7);
    cellGcmSetReferenceCommand(ctx, 0x99);
    cellGcmFlush(ctx);
    sys_timer_usleep(5000);
    CHECK_EQ(ctrl->ref, 0x42);
    *l66 = 7;
    CHECK(wait_for(&ctrl->ref, 0x99));

    /* A display buffer drawn by the CPU, and flips. */
    uint32_t *fb = PS3_PTR(cfg.localAddress + 0x100000);
    for (int y = 0; y < 32; y++)
        for (int x = 0; x < 64; x++) fb[y * 64 + x] = (uint32_t)(x * 4) << 16 | (uint32_t)(y * 8) << 8 | 0x80;
    uint32_t offset = 0;
    CHECK_EQ(cellGcmAddressToOffset(fb, &offset), CELL_OK);
    CHECK_EQ(offset, 0x100000);
    CHECK_EQ(cellGcmSetDisplayBuffer(8, offset, 256, 64, 32), CELL_GCM_ERROR_FAILURE);
    CHECK_EQ(cellGcmSetDisplayBuffer(0, offset, 256, 64, 32), CELL_OK);
    cellGcmSetFlipHandler(on_flip);
    cellGcmResetFlipStatus();
    CHECK_EQ(cellGcmGetFlipStatus(), CELL_GCM_DISPLAY_FLIP_STATUS_WAITING);
    system_time_t before = sys_time_get_system_time();
    CHECK_EQ(cellGcmSetFlip(ctx, 0), CELL_OK);
    int flipped = 0;
    for (int i = 0; i < 10000 && !flipped; i++) {
        flipped = cellGcmGetFlipStatus() == CELL_GCM_DISPLAY_FLIP_STATUS_DONE;
        if (!flipped) sys_timer_usleep(100);
    }
    CHECK(flipped);
    CHECK(cellGcmGetLastFlipTime() >= (uint64_t)before);
    for (int i = 0; i < 10000 && flip_handler_calls == 0; i++) sys_timer_usleep(100);
    CHECK(flip_handler_calls >= 1);
    CHECK_EQ(cellGcmSetFlip(ctx, 9), CELL_GCM_ERROR_FAILURE);

    /* Enough commands to wrap the 64 KiB buffer several times. */
    for (uint32_t i = 1; i <= 20000; i++) cellGcmSetReferenceCommand(ctx, 0x1000 + i);
    cellGcmFlush(ctx);
    CHECK(wait_for(&ctrl->ref, 0x1000 + 20000));
    CHECK(ctx->current < ctx->end && ctx->current >= ctx->begin);

    /* IO offsets. */
    CHECK_EQ(cellGcmAddressToOffset(PS3_PTR(io + 0x2000), &offset), CELL_OK);
    CHECK_EQ(offset, 0x2000);
    ps3_addr_t ea = 0;
    CHECK_EQ(cellGcmIoOffsetToAddress(0x2000, &ea), CELL_OK);
    CHECK_EQ(ea, io + 0x2000);
    CHECK_EQ(cellGcmIoOffsetToAddress(0x500000, &ea), CELL_GCM_ERROR_FAILURE);
    sys_addr_t more = 0;
    CHECK_EQ(sys_memory_allocate(0x100000, SYS_MEMORY_PAGE_SIZE_1M, &more), CELL_OK);
    CHECK_EQ(cellGcmMapMainMemory(PS3_PTR(more), 0x100000, &offset), CELL_OK);
    CHECK_EQ(offset, 0x100000);
    CHECK_EQ(cellGcmIoOffsetToAddress(0x100010, &ea), CELL_OK);
    CHECK_EQ(ea, more + 0x10);
    DONE("gcm");
}
