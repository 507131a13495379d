/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KLB_L7_H
#define _KLB_L7_H
#include "klb.h"
#endif
