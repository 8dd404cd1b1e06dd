import type { ImageField } from '../../shared/schemas/users';

/** The six photo fields in order; the first is the primary photo. Mirrors shared IMAGE_FIELDS without pulling zod in. */
export const IMAGE_FIELDS_LIST: readonly ImageField[] = ['image', 'image2', 'image3', 'image4', 'image5', 'image6'];
