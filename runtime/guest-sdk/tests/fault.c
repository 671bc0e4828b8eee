/* A guest memory fault ends the process with status 77 and a message
 * naming the guest address (checked by the test harness). */
#include <stdio.h>

int main(int argc, char **argv, char **envp)
{
    printf("about to fault\n");
    volatile unsigned int *p = (unsigned int *)0xDEAD0010;
    *p = 1;
    printf("not reached\n");
    return 0;
}
