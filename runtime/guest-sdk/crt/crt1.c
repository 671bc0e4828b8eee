/* C start-up of PS3 executables built with ps3cc (crt0.S calls it). */
#include <stdlib.h>
#include <stdint.h>

extern int main(int argc, char **argv, char **envp);
extern void (*__init_array_start[])(void) __attribute__((weak));
extern void (*__init_array_end[])(void) __attribute__((weak));

void __ps3_crt_start(int argc, char **argv, char **envp) __attribute__((noreturn, used));

void __ps3_crt_start(int argc, char **argv, char **envp)
{
    for (void (**f)(void) = __init_array_start; f < __init_array_end; f++) (*f)();
    exit(main(argc, argv, envp));
}
