/* Memory allocation and containers (system calls). */
#ifndef PS3SDK_SYS_MEMORY_H
#define PS3SDK_SYS_MEMORY_H

#include <sys/syscall.h>

#define SYS_MEMORY_PAGE_SIZE_1M 0x400
#define SYS_MEMORY_PAGE_SIZE_64K 0x200
#define SYS_MEMORY_CONTAINER_ID_INVALID 0xFFFFFFFF

typedef struct {
    uint32_t total_user_memory;
    uint32_t available_user_memory;
} sys_memory_info_t;

typedef struct {
    uint64_t attribute;
    uint64_t access_right;
    uint32_t page_size;
    uint32_t pad;
} sys_page_attr_t;

static inline int sys_memory_allocate(size_t size, uint64_t flags, sys_addr_t *alloc_addr)
{
    return (int)ps3_syscall3(SYS_MEMORY_ALLOCATE, size, flags, PS3_ADDR(alloc_addr));
}
static inline int sys_memory_free(sys_addr_t addr) { return (int)ps3_syscall1(SYS_MEMORY_FREE, addr); }
static inline int sys_memory_container_create(sys_memory_container_t *cid, size_t size)
{
    return (int)ps3_syscall2(SYS_MEMORY_CONTAINER_CREATE, PS3_ADDR(cid), size);
}
static inline int sys_memory_container_destroy(sys_memory_container_t cid)
{
    return (int)ps3_syscall1(SYS_MEMORY_CONTAINER_DESTROY, cid);
}
static inline int sys_memory_container_get_size(sys_memory_info_t *info, sys_memory_container_t cid)
{
    return (int)ps3_syscall2(SYS_MEMORY_CONTAINER_GET_SIZE, PS3_ADDR(info), cid);
}
static inline int sys_memory_allocate_from_container(size_t size, sys_memory_container_t cid,
                                                     uint64_t flags, sys_addr_t *alloc_addr)
{
    return (int)ps3_syscall4(SYS_MEMORY_ALLOCATE_FROM_CONTAINER, size, cid, flags, PS3_ADDR(alloc_addr));
}
static inline int sys_memory_get_page_attribute(sys_addr_t addr, sys_page_attr_t *attr)
{
    return (int)ps3_syscall2(SYS_MEMORY_GET_PAGE_ATTRIBUTE, addr, PS3_ADDR(attr));
}
static inline int sys_memory_get_user_memory_size(sys_memory_info_t *info)
{
    return (int)ps3_syscall1(SYS_MEMORY_GET_USER_MEMORY_SIZE, PS3_ADDR(info));
}

#endif
