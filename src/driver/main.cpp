// tilesched: the command-line entry point; everything else is in the library.
#include <iostream>

#include "driver/Driver.h"

int main(int argc, char** argv) {
  return tilesched::driver::runCli(argc, argv, std::cout, std::cerr);
}
