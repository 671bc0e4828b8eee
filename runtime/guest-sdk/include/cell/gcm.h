/* The RSX through libgcm (cellGcmSys imports) and the command writers
 * that Sony's libgcm provides inline. Commands are written into the
 * context's buffer as the RSX reads them: a header word (count << 18 |
 * method) followed by its arguments. */
#ifndef PS3SDK_CELL_GCM_H
#define PS3SDK_CELL_GCM_H

#include <sys/types.h>

typedef struct {
    ps3_addr_t begin;
    ps3_addr_t end;
    ps3_addr_t current;
    ps3_addr_t callback;   /* PS3 descriptor: int32_t (*)(CellGcmContextData *, uint32_t count) */
} CellGcmContextData;

typedef struct {
    volatile uint32_t put;
    volatile uint32_t get;
    volatile uint32_t ref;
} CellGcmControl;

typedef struct {
    ps3_addr_t localAddress;
    ps3_addr_t ioAddress;
    uint32_t localSize;
    uint32_t ioSize;
    uint32_t memoryFrequency;
    uint32_t coreFrequency;
} CellGcmConfig;

#define CELL_GCM_DISPLAY_FLIP_STATUS_DONE 0
#define CELL_GCM_DISPLAY_FLIP_STATUS_WAITING 1
#define CELL_GCM_DISPLAY_HSYNC 1
#define CELL_GCM_DISPLAY_VSYNC 2
#define CELL_GCM_LOCATION_LOCAL 0
#define CELL_GCM_LOCATION_MAIN 1
#define CELL_GCM_ERROR_FAILURE ((int)0x802100ff)
#define CELL_GCM_ERROR_INVALID_VALUE ((int)0x80210003)
#define CELL_GCM_ERROR_ADDRESS_OVERWRAP ((int)0x80210005)

/* FIFO methods */
#define CELL_GCM_METHOD(method, count) (((uint32_t)(count) << 18) | (uint32_t)(method))
#define CELL_GCM_JUMP(offset) (0x20000000u | (uint32_t)(offset))
#define NV406E_SET_REFERENCE 0x0050
#define NV406E_SEMAPHORE_OFFSET 0x0064
#define NV406E_SEMAPHORE_ACQUIRE 0x0068
#define NV406E_SEMAPHORE_RELEASE 0x006c
#define NV4097_SET_SEMAPHORE_OFFSET 0x1d6c
#define NV4097_BACK_END_WRITE_SEMAPHORE_RELEASE 0x1d70
#define GCM_FLIP_COMMAND 0xfeac

extern int _cellGcmInitBody(ps3_addr_t *context, uint32_t cmdSize, uint32_t ioSize, const void *ioAddress);
extern ps3_addr_t cellGcmGetControlRegister(void);
extern void cellGcmGetConfiguration(CellGcmConfig *config);
extern int cellGcmAddressToOffset(const void *address, uint32_t *offset);
extern int cellGcmIoOffsetToAddress(uint32_t offset, ps3_addr_t *address);
extern int cellGcmMapMainMemory(const void *address, uint32_t size, uint32_t *offset);
extern int cellGcmSetDisplayBuffer(uint8_t id, uint32_t offset, uint32_t pitch, uint32_t width,
                                   uint32_t height);
extern uint32_t cellGcmGetFlipStatus(void);
extern void cellGcmResetFlipStatus(void);
extern void cellGcmSetFlipMode(uint32_t mode);
extern int cellGcmSetFlip(CellGcmContextData *ctx, uint32_t id);
extern ps3_addr_t cellGcmGetLabelAddress(uint8_t index);
extern uint64_t cellGcmGetLastFlipTime(void);
extern uint32_t cellGcmGetDefaultCommandWordSize(void);
extern void __raw_cellGcmSetFlipHandler(ps3_addr_t handler_opd);
extern void __raw_cellGcmSetVBlankHandler(ps3_addr_t handler_opd);

/* The current context (set by cellGcmInit). */
extern CellGcmContextData *gCellGcmCurrentContext;

/* Calls a PS3 descriptor (code, TOC) with two arguments: what LV2-side
 * callbacks such as the command buffer's look like to the program. */
extern int64_t ps3_call_opd32(ps3_addr_t opd, uint64_t a1, uint64_t a2);

static inline int cellGcmInit(uint32_t cmdSize, uint32_t ioSize, void *ioAddress)
{
    ps3_addr_t ctx = 0;
    int r = _cellGcmInitBody(&ctx, cmdSize, ioSize, ioAddress);
    if (r == CELL_OK) gCellGcmCurrentContext = (CellGcmContextData *)PS3_PTR(ctx);
    return r;
}
static inline void cellGcmSetFlipHandler(void (*handler)(uint32_t head))
{
    __raw_cellGcmSetFlipHandler(handler ? PS3_OPD32(handler) : 0);
}
static inline void cellGcmSetVBlankHandler(void (*handler)(uint32_t head))
{
    __raw_cellGcmSetVBlankHandler(handler ? PS3_OPD32(handler) : 0);
}
static inline CellGcmControl *cellGcmGetControl(void)
{
    return (CellGcmControl *)PS3_PTR(cellGcmGetControlRegister());
}

/* Room for `words` words at ctx->current, calling the context's callback
 * (it flushes and wraps the buffer) when there is not. */
static inline uint32_t *cellGcmReserve(CellGcmContextData *ctx, uint32_t words)
{
    if (ctx->current + 4 * words > ctx->end) {
        if (ps3_call_opd32(ctx->callback, PS3_ADDR(ctx), words) != CELL_OK) return 0;
    }
    return (uint32_t *)PS3_PTR(ctx->current);
}
static inline void cellGcmCommit(CellGcmContextData *ctx, uint32_t *end)
{
    ctx->current = PS3_ADDR(end);
}

static inline void cellGcmSetReferenceCommand(CellGcmContextData *ctx, uint32_t ref)
{
    uint32_t *p = cellGcmReserve(ctx, 2);
    p[0] = CELL_GCM_METHOD(NV406E_SET_REFERENCE, 1);
    p[1] = ref;
    cellGcmCommit(ctx, p + 2);
}
/* Label `index` gets `value` once the RSX's front end reaches here. */
static inline void cellGcmSetWriteCommandLabel(CellGcmContextData *ctx, uint8_t index, uint32_t value)
{
    uint32_t *p = cellGcmReserve(ctx, 4);
    p[0] = CELL_GCM_METHOD(NV406E_SEMAPHORE_OFFSET, 1);
    p[1] = 0x10u * index;
    p[2] = CELL_GCM_METHOD(NV406E_SEMAPHORE_RELEASE, 1);
    p[3] = value;
    cellGcmCommit(ctx, p + 4);
}
/* Label `index` gets `value` once the RSX's back end has finished all
 * earlier work (the value travels with bytes 0 and 2 swapped). */
static inline void cellGcmSetWriteBackEndLabel(CellGcmContextData *ctx, uint8_t index, uint32_t value)
{
    uint32_t *p = cellGcmReserve(ctx, 4);
    p[0] = CELL_GCM_METHOD(NV4097_SET_SEMAPHORE_OFFSET, 1);
    p[1] = 0x10u * index;
    p[2] = CELL_GCM_METHOD(NV4097_BACK_END_WRITE_SEMAPHORE_RELEASE, 1);
    p[3] = (value & 0xff00ff00u) | ((value >> 16) & 0xffu) | ((value & 0xffu) << 16);
    cellGcmCommit(ctx, p + 4);
}
/* The RSX waits here until label `index` holds `value`. */
static inline void cellGcmSetWaitLabel(CellGcmContextData *ctx, uint8_t index, uint32_t value)
{
    uint32_t *p = cellGcmReserve(ctx, 4);
    p[0] = CELL_GCM_METHOD(NV406E_SEMAPHORE_OFFSET, 1);
    p[1] = 0x10u * index;
    p[2] = CELL_GCM_METHOD(NV406E_SEMAPHORE_ACQUIRE, 1);
    p[3] = value;
    cellGcmCommit(ctx, p + 4);
}
/* Lets the RSX read everything written so far (moves the PUT pointer). */
static inline void cellGcmFlush(CellGcmContextData *ctx)
{
    uint32_t offset;
    if (cellGcmAddressToOffset(PS3_PTR(ctx->current), &offset) == CELL_OK) {
        __asm__ volatile("sync" ::: "memory");
        cellGcmGetControl()->put = offset;
    }
}

#endif
