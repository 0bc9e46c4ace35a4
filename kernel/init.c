// SPDX-License-Identifier: MIT
/*
 * init.c - /init of the test kernel's initramfs: load the test module
 * (its KTAP goes to the console), then reboot, which ends QEMU under
 * -no-reboot.  Built static by kernel/build.sh.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/reboot.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	int fd = open("/repstos_ktest.ko", O_RDONLY);

	if (fd < 0 || syscall(SYS_finit_module, fd, "", 0))
		perror("repstos init: loading /repstos_ktest.ko");
	sync();
	reboot(RB_AUTOBOOT);
	return 1;
}
