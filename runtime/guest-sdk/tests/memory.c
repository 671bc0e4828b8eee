/* Memory: sys_memory_allocate/free, containers, page attributes, and the
 * SDK's malloc on top of them. */
#include <sys/memory.h>
#include <stdlib.h>
#include <string.h>
#include "ps3test.h"

int main(int argc, char **argv, char **envp)
{
    sys_memory_info_t before, after;
    CHECK_EQ(sys_memory_get_user_memory_size(&before), CELL_OK);
    CHECK(before.total_user_memory >= 0x0C800000);
    CHECK(before.available_user_memory < before.total_user_memory);

    sys_addr_t a = 0, b = 0;
    CHECK_EQ(sys_memory_allocate(0x100000, SYS_MEMORY_PAGE_SIZE_1M, &a), CELL_OK);
    CHECK(a != 0 && (a & 0xFFFFF) == 0);
    CHECK_EQ(sys_memory_allocate(0x10000, SYS_MEMORY_PAGE_SIZE_64K, &b), CELL_OK);
    CHECK((b & 0xFFFF) == 0);
    CHECK_EQ(sys_memory_allocate(0x10000, SYS_MEMORY_PAGE_SIZE_1M, &b), CELL_EALIGN);
    CHECK_EQ(sys_memory_allocate(0x100000, 0x800, &b), CELL_EINVAL);
    CHECK_EQ(sys_memory_allocate(0x40000000, SYS_MEMORY_PAGE_SIZE_1M, &b), CELL_ENOMEM);
    CHECK_EQ(sys_memory_get_user_memory_size(&after), CELL_OK);
    CHECK_EQ(before.available_user_memory - after.available_user_memory, 0x100000 + 0x10000);
    uint32_t *p = PS3_PTR(a);
    for (int i = 0; i < 0x40000; i += 1024) p[i] = (uint32_t)i * 7;
    for (int i = 0; i < 0x40000; i += 1024) CHECK_EQ(p[i], (uint32_t)i * 7);
    sys_page_attr_t attr;
    CHECK_EQ(sys_memory_get_page_attribute(a + 0x1234, &attr), CELL_OK);
    CHECK_EQ(attr.page_size, 0x100000);
    CHECK_EQ(attr.attribute, 0x40000); /* read/write */
    CHECK_EQ(sys_memory_get_page_attribute(0x0, &attr), CELL_EINVAL);
    CHECK_EQ(sys_memory_free(a + 4), CELL_EINVAL);
    CHECK_EQ(sys_memory_free(a), CELL_OK);
    CHECK_EQ(sys_memory_free(a), CELL_EINVAL);
    /* b was overwritten by the failed calls above only on success. */

    sys_memory_container_t cid;
    CHECK_EQ(sys_memory_container_create(&cid, 0x200000), CELL_OK);
    sys_memory_info_t ci;
    CHECK_EQ(sys_memory_container_get_size(&ci, cid), CELL_OK);
    CHECK_EQ(ci.total_user_memory, 0x200000);
    CHECK_EQ(ci.available_user_memory, 0x200000);
    sys_addr_t c = 0;
    CHECK_EQ(sys_memory_allocate_from_container(0x100000, cid, SYS_MEMORY_PAGE_SIZE_1M, &c), CELL_OK);
    CHECK_EQ(sys_memory_allocate_from_container(0x200000, cid, SYS_MEMORY_PAGE_SIZE_1M, &a), CELL_ENOMEM);
    CHECK_EQ(sys_memory_container_destroy(cid), CELL_EBUSY);
    CHECK_EQ(sys_memory_free(c), CELL_OK);
    CHECK_EQ(sys_memory_container_destroy(cid), CELL_OK);
    CHECK_EQ(sys_memory_container_destroy(cid), CELL_ESRCH);

    /* malloc: many sizes, contents kept, frees reused. */
    void *blocks[64];
    for (int i = 0; i < 64; i++) {
        blocks[i] = malloc((size_t)(i * 97 + 1));
        CHECK(blocks[i] != 0);
        CHECK(((uintptr_t)blocks[i] & 15) == 0);
        memset(blocks[i], i, (size_t)(i * 97 + 1));
    }
    for (int i = 0; i < 64; i++) CHECK_EQ(((unsigned char *)blocks[i])[i * 97], i);
    for (int i = 0; i < 64; i += 2) free(blocks[i]);
    void *big = malloc(3 << 20);
    CHECK(big != 0);
    memset(big, 0xAB, 3 << 20);
    CHECK_EQ(((unsigned char *)big)[(3 << 20) - 1], 0xAB);
    free(big);
    char *s = calloc(100, 1);
    CHECK(s && s[99] == 0);
    s = realloc(s, 1000);
    CHECK(s != 0);
    DONE("memory");
}
