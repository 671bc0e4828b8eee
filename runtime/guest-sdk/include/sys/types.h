/* Basic types of the guest SDK.
 *
 * Programs are compiled by powerpc64-linux-gnu-gcc as LP64 ELFv1 code
 * (64-bit pointers) but linked, loaded and run below 4 GiB, so every
 * pointer holds a 32-bit guest effective address, as the PS3's PPU ABI
 * requires. Structures shared with LV2 and the system modules keep the
 * PS3's layout: their pointer fields are 32-bit (ps3_addr_t), and function
 * pointers handed to the system are the PS3's 8-byte descriptors
 * (PS3_OPD32). See ../../README.md. */
#ifndef PS3SDK_SYS_TYPES_H
#define PS3SDK_SYS_TYPES_H

#include <stddef.h>
#include <stdint.h>

typedef uint32_t ps3_addr_t;   /* a 32-bit guest address inside a PS3 structure */
typedef uint64_t usecond_t;
typedef uint64_t second_t;
typedef uint32_t sys_addr_t;
typedef uint32_t sys_memory_t;
typedef uint32_t sys_memory_container_t;
typedef uint64_t sys_ipc_key_t;
typedef uint32_t sys_pid_t;
typedef int64_t system_time_t;

#define CELL_OK 0
#define PS3_NORETURN __attribute__((noreturn))

/* The 32-bit address of a pointer (all guest pointers fit). */
#define PS3_ADDR(p) ((ps3_addr_t)(uintptr_t)(p))
#define PS3_PTR(a) ((void *)(uintptr_t)(uint32_t)(a))

/* The PS3 8-byte descriptor (code address, TOC) of a C function.
 * gcc's ELFv1 descriptors are 24 bytes; ps3cc puts the address of the
 * function's PS3 descriptor (in .opd) in their third doubleword, which
 * gcc never reads. Pass this to LV2 and the system modules, never the C
 * function pointer itself. */
static inline ps3_addr_t ps3_opd32(const void *fn)
{
    return (ps3_addr_t)((const uint64_t *)fn)[2];
}
#define PS3_OPD32(fn) ps3_opd32((const void *)(fn))

/* Error codes shared by LV2 and the system modules (0x8001xxxx). */
#define CELL_EAGAIN       ((int)0x80010001)
#define CELL_EINVAL       ((int)0x80010002)
#define CELL_ENOSYS       ((int)0x80010003)
#define CELL_ENOMEM       ((int)0x80010004)
#define CELL_ESRCH        ((int)0x80010005)
#define CELL_ENOENT       ((int)0x80010006)
#define CELL_ENOEXEC      ((int)0x80010007)
#define CELL_EDEADLK      ((int)0x80010008)
#define CELL_EPERM        ((int)0x80010009)
#define CELL_EBUSY        ((int)0x8001000A)
#define CELL_ETIMEDOUT    ((int)0x8001000B)
#define CELL_EABORT       ((int)0x8001000C)
#define CELL_EFAULT       ((int)0x8001000D)
#define CELL_ESTAT        ((int)0x8001000F)
#define CELL_EALIGN       ((int)0x80010010)
#define CELL_EKRESOURCE   ((int)0x80010011)
#define CELL_EISDIR       ((int)0x80010012)
#define CELL_ECANCELED    ((int)0x80010013)
#define CELL_EEXIST       ((int)0x80010014)
#define CELL_EISCONN      ((int)0x80010015)
#define CELL_ENOTCONN     ((int)0x80010016)
#define CELL_EBADF        ((int)0x8001002A)
#define CELL_EIO          ((int)0x8001002B)
#define CELL_EMFILE       ((int)0x8001002C)
#define CELL_ENOTDIR      ((int)0x8001002E)
#define CELL_ENAMETOOLONG ((int)0x80010034)
#define CELL_ENOTEMPTY    ((int)0x80010036)
#define CELL_ENOTSUP      ((int)0x80010037)

#endif
