// SPDX-License-Identifier: GPL-2.0
#include <linux/compiler.h>
#include "debug.h"
#include "machine.h"
#include "tests.h"
#include "thread.h"

/*
 * Removing a thread that is no longer in its machine, again or after another
 * thread of its tid took its place, leaves the machine's threads as they are.
 */
static int test__threads_remove(struct test_suite *test __maybe_unused,
				int subtest __maybe_unused)
{
	struct machines machines;
	struct machine *machine = &machines.host;
	struct thread *gone, *other, *found;
	int err = TEST_FAIL;

	machines__init(&machines);

	gone = machine__findnew_thread(machine, 100, 100);
	TEST_ASSERT_VAL("failed to create a thread", gone);
	machine__remove_thread(machine, gone);
	/* Not there at all */
	machine__remove_thread(machine, gone);

	other = machine__findnew_thread(machine, 200, 100);
	if (!other) {
		pr_debug("failed to create the other thread\n");
		goto out_put_gone;
	}
	/* Another thread of its tid there */
	machine__remove_thread(machine, gone);
	found = machine__find_thread(machine, 200, 100);
	if (found && RC_CHK_EQUAL(found, other))
		err = TEST_OK;
	else
		pr_debug("the other thread of the tid was removed\n");
	thread__put(found);
	thread__put(other);
out_put_gone:
	thread__put(gone);
	machines__exit(&machines);
	return err;
}

DEFINE_SUITE("Remove a thread no longer there", threads_remove);
