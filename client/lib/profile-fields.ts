import type { ImageField } from '../../shared/schemas/users';

/** The six photo fields in order; the first is the primary photo. Mirrors shared IMAGE_FIELDS without pulling zod in. */
export const IMAGE_FIELDS_LIST: readonly ImageField[] = ['image', 'image2', 'image3', 'image4', 'image5', 'image6'];

/**
 * A profile's photos in the order of its fields, each once: a profile may hold one photo in two fields
 * (saved so through the API, or seeded so), which would show twice and share a React key.
 */
export const photosOf = (profile: Partial<Record<ImageField, string | null>>): string[] => [
  ...new Set(IMAGE_FIELDS_LIST.map((field) => profile[field]).filter((url): url is string => Boolean(url))),
];
