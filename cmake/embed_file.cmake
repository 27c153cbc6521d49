# Turns a text file into a C header defining one string constant: cmake -DIN= -DOUT= -DNAME= -P embed_file.cmake
file(READ "${IN}" content HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${content}")
file(WRITE "${OUT}" "/* generated from ${IN}; do not edit */\nstatic const char ${NAME}[] = {${bytes} 0x00};\n")
