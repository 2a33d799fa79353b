#!/bin/bash
# Profiles resolved from separated debug images
# SPDX-License-Identifier: GPL-2.0
#
# The layouts of executables: see lib/debug_images.sh.

kind_layouts="exec exec-nosep exec-maxpage static exec-hotsec lld-exec gold-exec"
DEBUG_IMAGES_LAYOUTS=${DEBUG_IMAGES_LAYOUTS:-${kind_layouts}}
# shellcheck source=lib/debug_images.sh
. "$(dirname "$0")/lib/debug_images.sh"
