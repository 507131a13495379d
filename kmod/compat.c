// SPDX-License-Identifier: GPL-2.0
/*
 * Symbols klb takes from other modules at run time instead of at link time,
 * so that a bare `insmod klb.ko` works on a fresh boot: nothing else has to
 * be loaded first. klb_compat_init() finds the defragmentation functions of
 * nf_defrag_ipv4 and nf_defrag_ipv6 (loading the modules with
 * request_module() if they are not there yet, or using them if they are
 * built in) and holds them, and with them a reference on each module, until
 * klb_compat_exit().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kmod.h>
#include <linux/module.h>

#include "compat.h"

struct klb_defrag_ops klb_defrag __read_mostly;

static void klb_defrag_put(void)
{
	if (klb_defrag.v4_enable)
		symbol_put(nf_defrag_ipv4_enable);
	if (klb_defrag.v4_disable)
		symbol_put(nf_defrag_ipv4_disable);
	if (klb_defrag.v6_enable)
		symbol_put(nf_defrag_ipv6_enable);
	if (klb_defrag.v6_disable)
		symbol_put(nf_defrag_ipv6_disable);
	memset(&klb_defrag, 0, sizeof(klb_defrag));
}

static bool klb_defrag_get(void)
{
	klb_defrag.v4_enable = symbol_get(nf_defrag_ipv4_enable);
	klb_defrag.v4_disable = symbol_get(nf_defrag_ipv4_disable);
	klb_defrag.v6_enable = symbol_get(nf_defrag_ipv6_enable);
	klb_defrag.v6_disable = symbol_get(nf_defrag_ipv6_disable);
	if (klb_defrag.v4_enable && klb_defrag.v4_disable &&
	    klb_defrag.v6_enable && klb_defrag.v6_disable)
		return true;
	klb_defrag_put();
	return false;
}

int klb_compat_init(void)
{
	/* Already loaded (modprobe's softdep did it) or built in. */
	if (klb_defrag_get())
		return 0;
	/* request_module() fails only if modprobe cannot be run at all. */
	if (request_module("nf_defrag_ipv4"))
		pr_warn("request_module(nf_defrag_ipv4) failed\n");
	if (request_module("nf_defrag_ipv6"))
		pr_warn("request_module(nf_defrag_ipv6) failed\n");
	if (klb_defrag_get())
		return 0;
	pr_err("needs nf_defrag_ipv4 and nf_defrag_ipv6 (CONFIG_NF_DEFRAG_IPV4/6): not found\n");
	return -ENOENT;
}

void klb_compat_exit(void)
{
	klb_defrag_put();
}
