/* cellPad with the scripted pad (the harness sets
 * CELLPORT_PAD_SCRIPT="0:cross+left:0,255"). */
#include <cell/pad.h>
#include "ps3test.h"

int main(int argc, char **argv, char **envp)
{
    CellPadData d;
    CHECK_EQ(cellPadGetData(0, &d), CELL_PAD_ERROR_UNINITIALIZED);
    CHECK_EQ(cellPadInit(8), CELL_PAD_ERROR_INVALID_PARAMETER);
    CHECK_EQ(cellPadInit(2), CELL_OK);
    CHECK_EQ(cellPadInit(2), CELL_PAD_ERROR_ALREADY_INITIALIZED);
    CellPadInfo2 info;
    CHECK_EQ(cellPadGetInfo2(&info), CELL_OK);
    CHECK_EQ(info.max_connect, 2);
    CHECK_EQ(info.now_connect, 1);
    CHECK_EQ(info.port_status[0] & CELL_PAD_STATUS_CONNECTED, CELL_PAD_STATUS_CONNECTED);
    CHECK_EQ(cellPadGetData(0, &d), CELL_OK);
    CHECK_EQ(d.len, 24);
    CHECK_EQ(d.button[CELL_PAD_BTN_OFFSET_DIGITAL2], CELL_PAD_CTRL_CROSS);
    CHECK_EQ(d.button[CELL_PAD_BTN_OFFSET_DIGITAL1], CELL_PAD_CTRL_LEFT);
    CHECK_EQ(d.button[CELL_PAD_BTN_OFFSET_ANALOG_LEFT_X], 0);
    CHECK_EQ(d.button[CELL_PAD_BTN_OFFSET_ANALOG_LEFT_Y], 255);
    CHECK_EQ(d.button[CELL_PAD_BTN_OFFSET_ANALOG_RIGHT_X], 128);
    CHECK_EQ(cellPadGetData(0, &d), CELL_OK);
    CHECK_EQ(d.len, 0); /* no change since the last call */
    CHECK_EQ(cellPadGetData(1, &d), CELL_PAD_ERROR_NO_DEVICE);
    CHECK_EQ(cellPadGetData(2, &d), CELL_PAD_ERROR_INVALID_PARAMETER);
    CHECK_EQ(cellPadClearBuf(0), CELL_OK);
    CHECK_EQ(cellPadGetData(0, &d), CELL_OK);
    CHECK_EQ(d.len, 24);
    CHECK_EQ(cellPadEnd(), CELL_OK);
    CHECK_EQ(cellPadEnd(), CELL_PAD_ERROR_UNINITIALIZED);
    DONE("pad");
}
