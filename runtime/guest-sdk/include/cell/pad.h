/* Game pads (cellPad imports). */
#ifndef PS3SDK_CELL_PAD_H
#define PS3SDK_CELL_PAD_H

#include <sys/types.h>

#define CELL_PAD_MAX_PORT_NUM 7
#define CELL_PAD_MAX_CODES 64
#define CELL_PAD_STATUS_CONNECTED 1
#define CELL_PAD_BTN_OFFSET_DIGITAL1 2
#define CELL_PAD_BTN_OFFSET_DIGITAL2 3
#define CELL_PAD_BTN_OFFSET_ANALOG_RIGHT_X 4
#define CELL_PAD_BTN_OFFSET_ANALOG_RIGHT_Y 5
#define CELL_PAD_BTN_OFFSET_ANALOG_LEFT_X 6
#define CELL_PAD_BTN_OFFSET_ANALOG_LEFT_Y 7
#define CELL_PAD_CTRL_LEFT 0x80
#define CELL_PAD_CTRL_DOWN 0x40
#define CELL_PAD_CTRL_RIGHT 0x20
#define CELL_PAD_CTRL_UP 0x10
#define CELL_PAD_CTRL_START 0x08
#define CELL_PAD_CTRL_SELECT 0x01
#define CELL_PAD_CTRL_SQUARE 0x80
#define CELL_PAD_CTRL_CROSS 0x40
#define CELL_PAD_CTRL_CIRCLE 0x20
#define CELL_PAD_CTRL_TRIANGLE 0x10
#define CELL_PAD_ERROR_ALREADY_INITIALIZED ((int)0x80121101)
#define CELL_PAD_ERROR_UNINITIALIZED ((int)0x80121103)
#define CELL_PAD_ERROR_INVALID_PARAMETER ((int)0x80121104)
#define CELL_PAD_ERROR_NO_DEVICE ((int)0x80121107)

typedef struct {
    int32_t len;
    uint16_t button[CELL_PAD_MAX_CODES];
} CellPadData;

typedef struct {
    uint32_t max_connect;
    uint32_t now_connect;
    uint32_t system_info;
    uint32_t port_status[CELL_PAD_MAX_PORT_NUM];
    uint32_t port_setting[CELL_PAD_MAX_PORT_NUM];
    uint32_t device_capability[CELL_PAD_MAX_PORT_NUM];
    uint32_t device_type[CELL_PAD_MAX_PORT_NUM];
} CellPadInfo2;

extern int cellPadInit(uint32_t max_connect);
extern int cellPadEnd(void);
extern int cellPadGetData(uint32_t port, CellPadData *data);
extern int cellPadGetInfo2(CellPadInfo2 *info);
extern int cellPadClearBuf(uint32_t port);

#endif
