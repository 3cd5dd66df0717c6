export const message = "lazy chunk v1";
