/* Heap and process exit for the guest SDK.
 *
 * The heap takes 1 MiB chunks from LV2 (sys_memory_allocate) and hands out
 * 16-byte aligned blocks, first fit from one free list, under a spin lock
 * built on lwarx/stwcx. (GCC's __atomic builtins). */
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/memory.h>
#include <sys/process.h>

typedef struct block {
    uint64_t size;          /* bytes including this header */
    struct block *next;     /* next free block (free blocks only) */
} block_t;

#define HDR ((uint64_t)sizeof(block_t))
#define CHUNK (1u << 20)

static block_t *free_list;
static volatile uint32_t heap_lock;

static void lock(void)
{
    while (__atomic_exchange_n(&heap_lock, 1, __ATOMIC_ACQUIRE)) {
        while (heap_lock) {}
    }
}
static void unlock(void) { __atomic_store_n(&heap_lock, 0, __ATOMIC_RELEASE); }

static int grow(uint64_t need)
{
    uint64_t size = (need + HDR + CHUNK - 1) & ~(uint64_t)(CHUNK - 1);
    sys_addr_t addr = 0;
    if (sys_memory_allocate(size, SYS_MEMORY_PAGE_SIZE_1M, &addr) != CELL_OK) return 0;
    block_t *b = (block_t *)PS3_PTR(addr);
    b->size = size;
    b->next = free_list;
    free_list = b;
    return 1;
}

void *malloc(size_t n)
{
    if (n == 0) n = 1;
    uint64_t need = ((uint64_t)n + HDR + 15) & ~(uint64_t)15;
    lock();
    for (int tries = 0; tries < 2; tries++) {
        block_t **pp = &free_list;
        for (block_t *b = free_list; b; pp = &b->next, b = b->next) {
            if (b->size < need) continue;
            if (b->size - need >= 64) {
                block_t *rest = (block_t *)((char *)b + need);
                rest->size = b->size - need;
                rest->next = b->next;
                *pp = rest;
                b->size = need;
            } else {
                *pp = b->next;
            }
            unlock();
            return (char *)b + HDR;
        }
        if (!grow(need)) break;
    }
    unlock();
    return 0;
}

void free(void *p)
{
    if (!p) return;
    block_t *b = (block_t *)((char *)p - HDR);
    lock();
    b->next = free_list;
    free_list = b;
    unlock();
}

void *calloc(size_t n, size_t size)
{
    size_t total = n * size;
    if (size && total / size != n) return 0;
    void *p = malloc(total);
    if (p) memset(p, 0, total);
    return p;
}

void *realloc(void *p, size_t size)
{
    if (!p) return malloc(size);
    block_t *b = (block_t *)((char *)p - HDR);
    if (b->size - HDR >= size) return p;
    void *q = malloc(size);
    if (q) {
        memcpy(q, p, b->size - HDR);
        free(p);
    }
    return q;
}

void *memalign(size_t align, size_t size)
{
    if (align <= 16) return malloc(size);
    /* Over-allocate and never free the lead-in (good enough for the
     * few large aligned buffers programs ask for). */
    char *raw = malloc(size + align);
    if (!raw) return 0;
    uintptr_t a = ((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1);
    return (void *)a;
}

int abs(int x) { return x < 0 ? -x : x; }

long strtol(const char *s, char **end, int base)
{
    while (*s == ' ' || *s == '\t' || *s == '\n') s++;
    int neg = 0;
    if (*s == '-' || *s == '+') neg = *s++ == '-';
    if ((base == 0 || base == 16) && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s += 2;
        base = 16;
    } else if (base == 0) {
        base = s[0] == '0' ? 8 : 10;
    }
    long v = 0;
    for (;; s++) {
        int d = *s >= '0' && *s <= '9' ? *s - '0' : *s >= 'a' && *s <= 'z' ? *s - 'a' + 10 : *s >= 'A' && *s <= 'Z' ? *s - 'A' + 10 : 99;
        if (d >= base) break;
        v = v * base + d;
    }
    if (end) *end = (char *)s;
    return neg ? -v : v;
}

int atoi(const char *s) { return (int)strtol(s, 0, 10); }

#define ATEXIT_MAX 32
static void (*atexit_fns[ATEXIT_MAX])(void);
static int atexit_count;

int atexit(void (*fn)(void))
{
    if (atexit_count == ATEXIT_MAX) return -1;
    atexit_fns[atexit_count++] = fn;
    return 0;
}

extern void (*__fini_array_start[])(void) __attribute__((weak));
extern void (*__fini_array_end[])(void) __attribute__((weak));

void exit(int status)
{
    while (atexit_count > 0) atexit_fns[--atexit_count]();
    for (void (**f)(void) = __fini_array_end; f > __fini_array_start;) (*--f)();
    sys_process_exit(status);
}

void abort(void)
{
    sys_process_exit(134);
}
