/* Umbrella header of the w4a16 compiler library. */
#ifndef W4A16_W4A16_H
#define W4A16_W4A16_H
#include "w4a16/dialect.h"
#include "w4a16/passes.h"
#endif
