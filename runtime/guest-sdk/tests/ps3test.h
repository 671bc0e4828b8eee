/* Checks for the PS3 test programs: each failed check prints its file,
 * line and values; the program ends with "PASS <name>" and status 0, or
 * its failure count as the status. Thread-safe. */
#ifndef PS3TEST_H
#define PS3TEST_H

#include <stdio.h>
#include <stdint.h>

static int ps3t_checks, ps3t_failures;

static inline void ps3t_fail(void) { __atomic_add_fetch(&ps3t_failures, 1, __ATOMIC_SEQ_CST); }

#define CHECK(cond)                                                         \
    do {                                                                    \
        __atomic_add_fetch(&ps3t_checks, 1, __ATOMIC_SEQ_CST);              \
        if (!(cond)) {                                                      \
            ps3t_fail();                                                    \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);          \
        }                                                                   \
    } while (0)

#define CHECK_EQ(a, b)                                                                      \
    do {                                                                                    \
        long long _a = (long long)(a), _b = (long long)(b);                                 \
        __atomic_add_fetch(&ps3t_checks, 1, __ATOMIC_SEQ_CST);                              \
        if (_a != _b) {                                                                     \
            ps3t_fail();                                                                    \
            printf("FAIL %s:%d: %s == %s (%lld != %lld; %#llx != %#llx)\n", __FILE__, __LINE__, \
                   #a, #b, _a, _b, _a, _b);                                                 \
        }                                                                                   \
    } while (0)

#define DONE(name)                                                                   \
    do {                                                                             \
        printf("%s: %d checks, %d failed\n", name, ps3t_checks, ps3t_failures);      \
        if (ps3t_failures == 0) printf("PASS %s\n", name);                           \
        return ps3t_failures;                                                        \
    } while (0)

#endif
