/* The default process parameters, linked when a program declares none
 * (SYS_PROCESS_PARAM in <sys/process.h>): priority 1001, 1 MiB stack. */
#include <sys/process.h>

SYS_PROCESS_PARAM(1001, 0x100000)
