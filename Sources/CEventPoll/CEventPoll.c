// The module is a header (CEventPoll.h); a C target needs one source file.
#include "CEventPoll.h"
