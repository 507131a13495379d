// SPDX-License-Identifier: GPL-2.0
/* STUB: being written */
#include "l7.h"
