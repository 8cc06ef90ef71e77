# cmake -DIN=FILE -DOUT=FILE.c -DNAME=SYMBOL -DFROM=TEXT -P bin2c.cmake: FILE's
# bytes as "const unsigned char SYMBOL[]" and "const size_t SYMBOL_size" in
# FILE.c, which includes image_direct.h (the one user)
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR n "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE ${OUT} "/* Generated from ${FROM} by harness/bin2c.cmake. */\n#include \"image_direct.h\"\n\nconst unsigned char ${NAME}[] = { ${bytes} };\nconst size_t ${NAME}_size = ${n};\n")
