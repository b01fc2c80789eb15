/// The readiness interfaces the Glibc module does not export (epoll on Linux), for GalleryNode's
/// event loops. On Darwin kqueue comes with the Darwin module and this header is empty.
#ifndef CEVENTPOLL_H
#define CEVENTPOLL_H

#if defined(__linux__)
#include <sys/epoll.h>
#endif

#endif
