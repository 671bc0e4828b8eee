/* The whole test suite as one executable: `suite NAME` runs test NAME
 * (each test's main is built as NAME_main). The lifted run of the suite
 * recompiles this one program instead of each test. */
#include <stdio.h>
#include <string.h>

#define TESTS(X) X(hello) X(threads) X(sync) X(events) X(tls) X(files) X(memory) X(badptr) X(fault) X(sysutil) X(gcm) X(pad)
#define DECLARE(n) int n##_main(int argc, char **argv, char **envp);
TESTS(DECLARE)

static const struct {
    const char *name;
    int (*run)(int, char **, char **);
} tests[] = {
#define ENTRY(n) {#n, n##_main},
    TESTS(ENTRY)
};

int main(int argc, char **argv, char **envp)
{
    if (argc >= 2)
        for (unsigned i = 0; i < sizeof tests / sizeof tests[0]; i++)
            if (!strcmp(argv[1], tests[i].name)) return tests[i].run(argc - 1, argv + 1, envp);
    printf("usage: suite TEST (");
    for (unsigned i = 0; i < sizeof tests / sizeof tests[0]; i++) printf(" %s", tests[i].name);
    printf(" )\n");
    return 2;
}
