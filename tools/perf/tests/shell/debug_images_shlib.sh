#!/bin/bash
# Profiles resolved from separated debug images: libraries
# SPDX-License-Identifier: GPL-2.0
#
# The layouts of shared libraries: see lib/debug_images.sh.

kind_layouts="shlib shlib-nosep lld-shlib gold-shlib"
DEBUG_IMAGES_LAYOUTS=${DEBUG_IMAGES_LAYOUTS:-${kind_layouts}}
# shellcheck source=lib/debug_images.sh
. "$(dirname "$0")/lib/debug_images.sh"
