/* The loader of a direct bzImage (docs/guest.md, "How the kernel starts").
 *
 * A direct bzImage is the kernel's own bzImage with its compressed payload
 * replaced: this loader, a table, and the vmlinux's PT_LOAD segments as they
 * are (harness/image/image_direct.c makes it). QEMU hands the setup and the
 * payload to SeaBIOS's linuxboot option ROM through fw_cfg, which copies
 * them into RAM once; the kernel's real-mode setup (arch/x86/boot) asks the
 * BIOS for the memory map and jumps to code32_start, here at 1 MiB, in
 * 32-bit protected mode, paging off, flat segments, %esi = boot_params.
 *
 * Here: each segment moves to its physical address, the part past its file
 * size is zeroed, and the kernel is entered through its PVH entry (the ELF
 * note XEN_ELFNOTE_PHYS32_ENTRY) with a hvm_start_info built from
 * boot_params: the memory map, the command line, the initrd, the RSDP.
 * No XZ decompression under TCG (about 4 s of every bzImage boot), and
 * nothing of the kernel is a QEMU ROM blob, which QEMU rewrites on every
 * reset, an S3 wake-up included (docs/pm.md, "Why S3 machines do not boot
 * the vmlinux through PVH").
 *
 * Assembly, not C: no compiler may turn a copy loop into a call to a
 * memcpy that is not there. */

#define BASE 0x100000		/* where the payload is loaded: code32_start */
#define TABLE (BASE + 0x3000)	/* image_direct.c's DIRECT_TABLE */
#define TABLE_MAGIC 0x6b42544b	/* "KTBk" */
#define MAX_SEGS 16
/* the table: magic, PVH entry, segment count, the highest address written
 * (segments and payload) + 1; then per segment: offset in the payload,
 * physical address, bytes to copy (a multiple of 4), bytes in memory */
#define T_ENTRY 4
#define T_NSEG 8
#define T_TOP 12
#define T_SEGS 16

/* struct boot_params (arch/x86/include/uapi/asm/bootparam.h) */
#define BP_E820_ENTRIES 0x1e8
#define BP_RAMDISK_IMAGE 0x218
#define BP_RAMDISK_SIZE 0x21c
#define BP_CMD_LINE_PTR 0x228
#define BP_E820_TABLE 0x2d0
#define E820_MAX 128

#define COM1 0x3f8

	.code32
	.section .text.start, "ax"
	.globl _start
_start:
	cli
	cld
	movl	$stack_top, %esp
	movl	%esi, bp

	movl	$TABLE, %ebx
	movl	$msg_table, %esi
	cmpl	$TABLE_MAGIC, (%ebx)
	jne	die
	movl	T_NSEG(%ebx), %edx
	cmpl	$MAX_SEGS, %edx
	ja	die

	/* QEMU put the initrd at the top of the RAM below 4 GiB; what the
	 * copies write must end under it (ktb checks it before it boots) */
	movl	bp, %eax
	cmpl	$0, BP_RAMDISK_SIZE(%eax)
	je	1f
	movl	BP_RAMDISK_IMAGE(%eax), %eax
	movl	$msg_initrd, %esi
	cmpl	T_TOP(%ebx), %eax
	jb	die
1:
	/* The segments, the last first. Each moves up (dest > its offset +
	 * BASE, image_direct.c checks it) and lies above the ones before it,
	 * so copying each backwards never overwrites a byte still to be read. */
2:	testl	%edx, %edx
	jz	3f
	decl	%edx
	movl	%edx, %ebp
	shll	$4, %ebp
	leal	T_SEGS(%ebx,%ebp), %ebp
	movl	8(%ebp), %ecx
	shrl	$2, %ecx
	jecxz	4f
	movl	(%ebp), %esi
	leal	BASE-4(%esi,%ecx,4), %esi
	movl	4(%ebp), %edi
	leal	-4(%edi,%ecx,4), %edi
	std
	rep movsl
	cld
4:	movl	4(%ebp), %edi
	addl	8(%ebp), %edi
	movl	12(%ebp), %ecx
	subl	8(%ebp), %ecx
	xorl	%eax, %eax
	rep stosb
	jmp	2b
3:
	/* the memory map: boot_params' e820 entries are 20 bytes, the
	 * hvm_memmap_table_entry 24 (a reserved word after the type) */
	movl	bp, %esi
	movzbl	BP_E820_ENTRIES(%esi), %ecx
	cmpl	$E820_MAX, %ecx
	jbe	5f
	movl	$E820_MAX, %ecx
5:	movl	%ecx, si_memmap_entries
	leal	BP_E820_TABLE(%esi), %esi
	movl	$memmap, %edi
6:	jecxz	7f
	movsl
	movsl
	movsl
	movsl
	movsl
	movl	$0, (%edi)
	addl	$4, %edi
	decl	%ecx
	jmp	6b
7:
	/* the initrd as the one module, and the command line */
	movl	bp, %esi
	movl	BP_RAMDISK_SIZE(%esi), %eax
	movl	%eax, mod_size
	testl	%eax, %eax
	jz	8f
	movl	BP_RAMDISK_IMAGE(%esi), %eax
	movl	%eax, mod_paddr
	movl	$1, si_nr_modules
8:	movl	BP_CMD_LINE_PTR(%esi), %eax
	movl	%eax, si_cmdline

	/* the RSDP, where SeaBIOS puts it: "RSD PTR " on a 16-byte boundary
	 * in 0xe0000-0xfffff (not found: 0, and the kernel looks itself) */
	movl	$0xe0000, %eax
9:	cmpl	$0x100000, %eax
	jae	11f
	cmpl	$0x20445352, (%eax)
	jne	10f
	cmpl	$0x20525450, 4(%eax)
	jne	10f
	movl	%eax, si_rsdp
	jmp	11f
10:	addl	$16, %eax
	jmp	9b
11:
	movl	$start_info, %ebx
	jmp	*TABLE+T_ENTRY

/* die: the message at %esi on the serial port, then a triple fault (QEMU
 * runs with -no-reboot: it exits, and ktb reports the console's last line) */
die:
	movw	$COM1, %dx
12:	lodsb
	testb	%al, %al
	jz	13f
	outb	%al, %dx
	jmp	12b
13:	lidt	no_idt
	int3
	hlt

	.section .data
msg_table:
	.asciz "ktb direct boot: the payload's table is damaged\r\n"
msg_initrd:
	.asciz "ktb direct boot: QEMU put the initrd under the kernel (too little memory below 4 GiB)\r\n"
	.balign 8
no_idt:
	.word 0
	.long 0
	.balign 8
/* struct hvm_start_info (xen/include/public/arch-x86/hvm/start_info.h),
 * version 1: with the memory map */
start_info:
	.long 0x336ec578	/* magic */
	.long 1			/* version */
	.long 0			/* flags */
si_nr_modules:
	.long 0
	.long modlist, 0	/* modlist_paddr */
si_cmdline:
	.long 0, 0		/* cmdline_paddr */
si_rsdp:
	.long 0, 0		/* rsdp_paddr */
	.long memmap, 0		/* memmap_paddr */
si_memmap_entries:
	.long 0
	.long 0			/* reserved */
/* struct hvm_modlist_entry: the initrd */
	.balign 8
modlist:
mod_paddr:
	.long 0, 0
mod_size:
	.long 0, 0
	.long 0, 0		/* cmdline_paddr */
	.long 0, 0		/* reserved */
bp:
	.long 0

	.section .bss
	.balign 16
memmap:
	.space 24 * E820_MAX
	.space 512
stack_top:

	.section .note.GNU-stack, "", @progbits
