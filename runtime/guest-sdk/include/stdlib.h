/* The guest SDK's C library: memory, process exit. */
#ifndef PS3SDK_STDLIB_H
#define PS3SDK_STDLIB_H
#include <stddef.h>
#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
void *malloc(size_t size);
void *calloc(size_t n, size_t size);
void *realloc(void *p, size_t size);
void *memalign(size_t align, size_t size);
void free(void *p);
void exit(int status) __attribute__((noreturn));
void abort(void) __attribute__((noreturn));
int atexit(void (*fn)(void));
int abs(int x);
int atoi(const char *s);
long strtol(const char *s, char **end, int base);
#endif
