#!/bin/bash
# Profiles resolved from separated debug images: PIEs
# SPDX-License-Identifier: GPL-2.0
#
# The layouts of position independent executables: see lib/debug_images.sh.

kind_layouts="pie pie-nosep pie-maxpage pie-hotsec lld-pie gold-pie"
DEBUG_IMAGES_LAYOUTS=${DEBUG_IMAGES_LAYOUTS:-${kind_layouts}}
# shellcheck source=lib/debug_images.sh
. "$(dirname "$0")/lib/debug_images.sh"
