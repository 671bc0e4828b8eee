/* Video output state and configuration (cellVideoOut, in cellSysutil). */
#ifndef PS3SDK_CELL_VIDEOOUT_H
#define PS3SDK_CELL_VIDEOOUT_H

#include <sys/types.h>

#define CELL_VIDEO_OUT_PRIMARY 0
#define CELL_VIDEO_OUT_OUTPUT_STATE_ENABLED 0
#define CELL_VIDEO_OUT_RESOLUTION_1080 1
#define CELL_VIDEO_OUT_RESOLUTION_720 2
#define CELL_VIDEO_OUT_RESOLUTION_480 4
#define CELL_VIDEO_OUT_RESOLUTION_576 5
#define CELL_VIDEO_OUT_ASPECT_AUTO 0
#define CELL_VIDEO_OUT_ASPECT_4_3 1
#define CELL_VIDEO_OUT_ASPECT_16_9 2
#define CELL_VIDEO_OUT_BUFFER_COLOR_FORMAT_X8R8G8B8 0
#define CELL_VIDEO_OUT_ERROR_ILLEGAL_PARAMETER ((int)0x8002b222)
#define CELL_VIDEO_OUT_ERROR_UNSUPPORTED_VIDEO_OUT ((int)0x8002b225)

typedef struct {
    uint8_t resolutionId;
    uint8_t scanMode;
    uint8_t conversion;
    uint8_t aspect;
    uint8_t reserved[2];
    uint16_t refreshRates;
} CellVideoOutDisplayMode;

typedef struct {
    uint8_t state;
    uint8_t colorSpace;
    uint8_t reserved[6];
    CellVideoOutDisplayMode displayMode;
} CellVideoOutState;

typedef struct {
    uint16_t width;
    uint16_t height;
} CellVideoOutResolution;

typedef struct {
    uint8_t resolutionId;
    uint8_t format;
    uint8_t aspect;
    uint8_t reserved[9];
    uint32_t pitch;
} CellVideoOutConfiguration;

extern int cellVideoOutGetState(uint32_t videoOut, uint32_t deviceIndex, CellVideoOutState *state);
extern int cellVideoOutGetResolution(uint32_t resolutionId, CellVideoOutResolution *resolution);
extern int cellVideoOutConfigure(uint32_t videoOut, CellVideoOutConfiguration *config, void *option,
                                 uint32_t waitForEvent);
extern int cellVideoOutGetConfiguration(uint32_t videoOut, CellVideoOutConfiguration *config,
                                        void *option);

#endif
