/* libgcm's state on the program's side, and the call through a PS3
 * descriptor that its command-buffer callback needs. */
#include <cell/gcm.h>

CellGcmContextData *gCellGcmCurrentContext;

int64_t ps3_call_opd32(ps3_addr_t opd, uint64_t a1, uint64_t a2)
{
    register uint64_t r3 __asm__("r3") = a1;
    register uint64_t r4 __asm__("r4") = a2;
    register uint64_t r12 __asm__("r12") = opd;
    /* The PS3 calling sequence through an 8-byte descriptor: code address
     * and TOC are 32-bit words; the caller's TOC is saved in its frame. */
    __asm__ volatile("lwz 0,0(12)\n\t"
                     "std 2,40(1)\n\t"
                     "lwz 2,4(12)\n\t"
                     "mtctr 0\n\t"
                     "bctrl\n\t"
                     "ld 2,40(1)"
                     : "+r"(r3), "+r"(r4), "+r"(r12)
                     :
                     : "r0", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "ctr", "lr", "xer",
                       "cr0", "cr1", "cr5", "cr6", "cr7", "memory", "fr0", "fr1", "fr2", "fr3", "fr4",
                       "fr5", "fr6", "fr7", "fr8", "fr9", "fr10", "fr11", "fr12", "fr13");
    return (int64_t)r3;
}
