#include "check.h"
int main(void) { return check_result("test_db"); }
