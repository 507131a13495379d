// SPDX-License-Identifier: GPL-2.0
/*
 * The L7 workqueue: sessions, listeners, backend connections and the
 * request queue all run their work on it. It lives alone, at the bottom
 * of l7/, so that the files that queue work need no file above them.
 */
#include <linux/workqueue.h>

#include "l7/l7.h"

struct workqueue_struct *klb_l7_wq;

int klb_l7_wq_init(void)
{
	/*
	 * Per-CPU: a session's work runs where its socket event came from.
	 * WQ_MEM_RECLAIM is not needed: nothing here frees memory.
	 */
	klb_l7_wq = alloc_workqueue("klb_l7", 0, 0);
	return klb_l7_wq ? 0 : -ENOMEM;
}

void klb_l7_wq_exit(void)
{
	destroy_workqueue(klb_l7_wq);
}
