/* fit.h — how a picture or a world is framed into the output frame.
 *
 * Shared by the scene (output.fit) and the views that frame by it.
 */
#ifndef WB_FIT_H
#define WB_FIT_H

typedef enum WbFit {
    WB_FIT_CONTAIN, /* `fit`:  whole image visible, letterboxed */
    WB_FIT_COVER    /* `fill`: output covered, image cropped */
} WbFit;

#endif
