/* Status strings (from the X-macro list) and the library version. */
#include "ctorch/core.h"

const char *ct_status_str(ct_status s) {
    switch (s) {
#define CT__STATUS_CASE(name, value, desc)                                                         \
    case name: return desc;
        CT_STATUS_LIST(CT__STATUS_CASE)
#undef CT__STATUS_CASE
    }
    return "unknown status";
}

#define CT__STR2(x) #x
#define CT__STR(x) CT__STR2(x)
const char *ct_version(void) {
    return CT__STR(CT_VERSION_MAJOR) "." CT__STR(CT_VERSION_MINOR) "." CT__STR(CT_VERSION_PATCH);
}
