/* .sys_proc_prx_param: where LV2 finds the import (.lib.stub) and export
 * (.lib.ent) tables (PT_PROC_PRX, 0x60000002). 0x40 bytes. */
	.section .sys_proc_prx_param,"a"
	.align 2
	.long 0x40            /* size */
	.long 0x1b434cec      /* magic */
	.long 4               /* version */
	.long 0
	.long __libent_start, __libent_end
	.long __libstub_start, __libstub_end
	.short 1, 0           /* ver, unk */
	.long 0
	.space 0x40 - 0x28
