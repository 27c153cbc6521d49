/* Links the installed W4A16::runtime (the runtime C API) into a program outside the w4a16 tree. */
#include "w4a16/runtime.h"

#include <stdio.h>
#include <string.h>

int main(void) {
  const char *ok = w4a16_status_name(W4A16_OK);
  if (!ok || !*ok) {
    fprintf(stderr, "runtime_consumer: w4a16_status_name(W4A16_OK) returned nothing\n");
    return 1;
  }
  printf("runtime_consumer: W4A16_OK is \"%s\", CUDA available: %d\n", ok, w4a16_cuda_available());
  return 0;
}
