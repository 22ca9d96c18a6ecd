/* color.h — a colour as the scene gives it and the views paint it.
 *
 * Channels are doubles in 0..1, straight (not premultiplied) alpha, in the
 * sRGB encoding the file wrote them in.  The views convert once, when they
 * set up their paint.
 */
#ifndef WB_COLOR_H
#define WB_COLOR_H

typedef struct WbColor {
    double r, g, b, a; /* 0..1, straight alpha */
} WbColor;

#endif
