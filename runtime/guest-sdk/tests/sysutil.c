/* cellSysutil and cellVideoOut: system parameters (the language comes
 * from CELLPORT_SYS_LANG, which the harness sets to pt-BR), callbacks,
 * video state; an import nothing implements returns CELL_ENOSYS. */
#include <cell/sysutil.h>
#include <cell/videoout.h>
#include <string.h>
#include "ps3test.h"

extern int cellSysutilGetBgmPlaybackStatus(void *status); /* not implemented by the runtime */

static int calls;
static uint64_t last_status;

static void callback(uint64_t status, uint64_t param, void *userdata)
{
    calls++;
    last_status = status;
    CHECK_EQ((uintptr_t)userdata, 0x1234);
}

int main(int argc, char **argv, char **envp)
{
    int32_t lang = -1;
    CHECK_EQ(cellSysutilGetSystemParamInt(CELL_SYSUTIL_SYSTEMPARAM_ID_LANG, &lang), CELL_OK);
    CHECK_EQ(lang, CELL_SYSUTIL_LANG_PORTUGUESE_BR);
    int32_t enter;
    CHECK_EQ(cellSysutilGetSystemParamInt(CELL_SYSUTIL_SYSTEMPARAM_ID_ENTER_BUTTON_ASSIGN, &enter), CELL_OK);
    CHECK_EQ(cellSysutilGetSystemParamInt(0x9999, &enter), CELL_SYSUTIL_ERROR_VALUE);
    char name[128];
    CHECK_EQ(cellSysutilGetSystemParamString(CELL_SYSUTIL_SYSTEMPARAM_ID_NICKNAME, name, 16), CELL_SYSUTIL_ERROR_SIZE);
    CHECK_EQ(cellSysutilGetSystemParamString(CELL_SYSUTIL_SYSTEMPARAM_ID_NICKNAME, name, sizeof name), CELL_OK);
    CHECK(strlen(name) > 0);

    CHECK_EQ(cellSysutilRegisterCallback(4, callback, (void *)0x1234), CELL_SYSUTIL_ERROR_VALUE);
    CHECK_EQ(cellSysutilRegisterCallback(0, callback, (void *)0x1234), CELL_OK);
    CHECK_EQ(cellSysutilCheckCallback(), CELL_OK);
    CHECK_EQ(calls, 0); /* nothing pending */
    CHECK_EQ(cellSysutilUnregisterCallback(0), CELL_OK);

    CellVideoOutState state;
    CHECK_EQ(cellVideoOutGetState(CELL_VIDEO_OUT_PRIMARY, 0, &state), CELL_OK);
    CHECK_EQ(state.state, CELL_VIDEO_OUT_OUTPUT_STATE_ENABLED);
    CellVideoOutResolution res;
    CHECK_EQ(cellVideoOutGetResolution(state.displayMode.resolutionId, &res), CELL_OK);
    CHECK(res.width >= 720 && res.height >= 480);
    CHECK_EQ(cellVideoOutGetResolution(CELL_VIDEO_OUT_RESOLUTION_1080, &res), CELL_OK);
    CHECK_EQ(res.width, 1920);
    CHECK_EQ(res.height, 1080);
    CHECK_EQ(cellVideoOutGetResolution(77, &res), CELL_VIDEO_OUT_ERROR_ILLEGAL_PARAMETER);
    CHECK_EQ(cellVideoOutGetState(9, 0, &state), CELL_VIDEO_OUT_ERROR_UNSUPPORTED_VIDEO_OUT);
    CellVideoOutConfiguration cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.resolutionId = CELL_VIDEO_OUT_RESOLUTION_720;
    cfg.format = CELL_VIDEO_OUT_BUFFER_COLOR_FORMAT_X8R8G8B8;
    cfg.aspect = CELL_VIDEO_OUT_ASPECT_16_9;
    cfg.pitch = 1280 * 4;
    CHECK_EQ(cellVideoOutConfigure(CELL_VIDEO_OUT_PRIMARY, &cfg, 0, 0), CELL_OK);
    memset(&cfg, 0, sizeof cfg);
    CHECK_EQ(cellVideoOutGetConfiguration(CELL_VIDEO_OUT_PRIMARY, &cfg, 0), CELL_OK);
    CHECK_EQ(cfg.resolutionId, CELL_VIDEO_OUT_RESOLUTION_720);
    CHECK_EQ(cfg.pitch, 1280 * 4);
    cfg.resolutionId = 99;
    CHECK_EQ(cellVideoOutConfigure(CELL_VIDEO_OUT_PRIMARY, &cfg, 0, 0), CELL_VIDEO_OUT_ERROR_ILLEGAL_PARAMETER);

    int status;
    CHECK_EQ(cellSysutilGetBgmPlaybackStatus(&status), CELL_ENOSYS);
    CHECK_EQ(cellSysutilGetBgmPlaybackStatus(&status), CELL_ENOSYS);
    DONE("sysutil");
}
