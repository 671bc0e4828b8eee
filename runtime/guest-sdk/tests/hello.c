/* The first PS3 test program: TTY output and the exit status. */
#include <stdio.h>
#include <sys/process.h>

static int twice(int x) { return 2 * x; }

int main(int argc, char **argv, char **envp)
{
    int (*volatile fp)(int) = twice;
    printf("hello from the PS3 guest: argc=%d argv[0]=%s twice(21)=%d pid=%u\n", argc,
           argc > 0 ? argv[0] : "(none)", fp(21), sys_process_getpid());
    return 42;
}
