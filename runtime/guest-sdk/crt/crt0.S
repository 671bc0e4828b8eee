/* Process entry of PS3 executables built with ps3cc.
 *
 * LV2 calls the entry through the 8-byte descriptor e_entry points at
 * (_start below: code address, TOC), with the stack pointer on the
 * argument area at the top of the main thread's stack and
 *   r3 argc, r4 argv (64-bit pointers), r5 envp, r6 envc,
 *   r7 the main thread's id, r8..r10 the TLS image address, file size
 *   and memory size, r11 e_entry, r12 malloc page size,
 * and r13 already pointing at the main thread's TLS (sysPrxForUser's
 * sys_initialize_tls has run). The argument area starts at 0(r1), so the
 * first frame is made below it and ends the back chain.
 */
	.section ".opd32","aw"
	.align 2
	.globl _start
	.type _start, @object
	.size _start, 8
_start:
	.long .L._start, .TOC.

	.text
	.align 2
.L._start:
	stdu 1,-128(1)
	li 0,0
	std 0,0(1)
	bl __ps3_crt_start
	nop
	/* __ps3_crt_start calls exit(); reaching here is a bug. */
	trap
