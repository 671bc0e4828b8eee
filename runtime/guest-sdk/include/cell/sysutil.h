/* System utility: callbacks and system parameters (cellSysutil imports). */
#ifndef PS3SDK_CELL_SYSUTIL_H
#define PS3SDK_CELL_SYSUTIL_H

#include <sys/types.h>

#define CELL_SYSUTIL_REQUEST_EXITGAME 0x0101
#define CELL_SYSUTIL_DRAWING_BEGIN 0x0121
#define CELL_SYSUTIL_DRAWING_END 0x0122
#define CELL_SYSUTIL_SYSTEM_MENU_OPEN 0x0131
#define CELL_SYSUTIL_SYSTEM_MENU_CLOSE 0x0132

#define CELL_SYSUTIL_SYSTEMPARAM_ID_LANG 0x0111
#define CELL_SYSUTIL_SYSTEMPARAM_ID_ENTER_BUTTON_ASSIGN 0x0112
#define CELL_SYSUTIL_SYSTEMPARAM_ID_NICKNAME 0x0113
#define CELL_SYSUTIL_SYSTEMPARAM_ID_DATE_FORMAT 0x0114
#define CELL_SYSUTIL_SYSTEMPARAM_ID_TIME_FORMAT 0x0115
#define CELL_SYSUTIL_SYSTEMPARAM_ID_TIMEZONE 0x0116
#define CELL_SYSUTIL_SYSTEMPARAM_ID_SUMMERTIME 0x0117
#define CELL_SYSUTIL_SYSTEMPARAM_ID_GAME_PARENTAL_LEVEL 0x0121
#define CELL_SYSUTIL_SYSTEMPARAM_ID_CURRENT_USERNAME 0x0131

#define CELL_SYSUTIL_LANG_JAPANESE 0
#define CELL_SYSUTIL_LANG_ENGLISH_US 1
#define CELL_SYSUTIL_LANG_FRENCH 2
#define CELL_SYSUTIL_LANG_SPANISH 3
#define CELL_SYSUTIL_LANG_GERMAN 4
#define CELL_SYSUTIL_LANG_ITALIAN 5
#define CELL_SYSUTIL_LANG_DUTCH 6
#define CELL_SYSUTIL_LANG_PORTUGUESE_PT 7
#define CELL_SYSUTIL_LANG_RUSSIAN 8
#define CELL_SYSUTIL_LANG_KOREAN 9
#define CELL_SYSUTIL_LANG_CHINESE_T 10
#define CELL_SYSUTIL_LANG_CHINESE_S 11
#define CELL_SYSUTIL_LANG_FINNISH 12
#define CELL_SYSUTIL_LANG_SWEDISH 13
#define CELL_SYSUTIL_LANG_DANISH 14
#define CELL_SYSUTIL_LANG_NORWEGIAN 15
#define CELL_SYSUTIL_LANG_POLISH 16
#define CELL_SYSUTIL_LANG_PORTUGUESE_BR 17
#define CELL_SYSUTIL_LANG_ENGLISH_GB 18
#define CELL_SYSUTIL_LANG_TURKISH 19

#define CELL_SYSUTIL_ERROR_TYPE ((int)0x8002b101)
#define CELL_SYSUTIL_ERROR_VALUE ((int)0x8002b102)
#define CELL_SYSUTIL_ERROR_SIZE ((int)0x8002b103)

typedef void (*CellSysutilCallback)(uint64_t status, uint64_t param, void *userdata);

extern int __raw_cellSysutilRegisterCallback(int slot, ps3_addr_t func_opd, void *userdata);
extern int cellSysutilUnregisterCallback(int slot);
extern int cellSysutilCheckCallback(void);
extern int cellSysutilGetSystemParamInt(int id, int32_t *value);
extern int cellSysutilGetSystemParamString(int id, char *buf, unsigned int bufsize);

static inline int cellSysutilRegisterCallback(int slot, CellSysutilCallback func, void *userdata)
{
    return __raw_cellSysutilRegisterCallback(slot, func ? PS3_OPD32(func) : 0, userdata);
}

#endif
