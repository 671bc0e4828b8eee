/* Formatted output for the guest SDK: a small vsnprintf (d i u x X o c s p
 * f %, flags - 0 + space #, width, precision, h hh l ll z j t lengths) and
 * printf/puts over sys_tty_write on channel 0. */
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <sys/tty.h>

struct out {
    char *buf;
    size_t size;
    size_t len;
};

static void put(struct out *o, char c)
{
    if (o->len + 1 < o->size) o->buf[o->len] = c;
    o->len++;
}

static void put_num(struct out *o, uint64_t v, int neg, unsigned base, int upper, int width,
                    int prec, int left, char pad, char sign)
{
    char tmp[24];
    int n = 0;
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    do {
        tmp[n++] = digits[v % base];
        v /= base;
    } while (v);
    while (n < prec) tmp[n++] = '0';
    char s = neg ? '-' : sign;
    int total = n + (s ? 1 : 0);
    if (!left && pad == ' ')
        for (; total < width; width--) put(o, ' ');
    if (s) put(o, s);
    if (!left && pad == '0')
        for (; total < width; width--) put(o, '0');
    while (n) put(o, tmp[--n]);
    if (left)
        for (; total < width; width--) put(o, ' ');
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
    struct out o = {buf, size, 0};
    for (; *fmt; fmt++) {
        if (*fmt != '%') {
            put(&o, *fmt);
            continue;
        }
        fmt++;
        int left = 0, width = 0, prec = -1, lng = 0, alt = 0;
        char pad = ' ', sign = 0;
        for (;; fmt++) {
            if (*fmt == '#') alt = 1;
            else if (*fmt == '-') left = 1;
            else if (*fmt == '0') pad = '0';
            else if (*fmt == '+') sign = '+';
            else if (*fmt == ' ') sign = sign ? sign : ' ';
            else break;
        }
        if (*fmt == '*') {
            width = va_arg(ap, int);
            fmt++;
        } else {
            while (*fmt >= '0' && *fmt <= '9') width = width * 10 + (*fmt++ - '0');
        }
        if (*fmt == '.') {
            fmt++;
            prec = 0;
            if (*fmt == '*') {
                prec = va_arg(ap, int);
                fmt++;
            } else {
                while (*fmt >= '0' && *fmt <= '9') prec = prec * 10 + (*fmt++ - '0');
            }
        }
        for (;; fmt++) {
            if (*fmt == 'l' || *fmt == 'z' || *fmt == 'j' || *fmt == 't') lng = 1;
            else if (*fmt == 'h') {}
            else break;
        }
        switch (*fmt) {
        case 'd':
        case 'i': {
            int64_t v = lng ? va_arg(ap, int64_t) : va_arg(ap, int);
            put_num(&o, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, v < 0, 10, 0, width,
                    prec, left, pad, sign);
            break;
        }
        case 'u':
        case 'x':
        case 'X':
        case 'o': {
            uint64_t v = lng ? va_arg(ap, uint64_t) : va_arg(ap, unsigned);
            unsigned base = *fmt == 'u' ? 10 : *fmt == 'o' ? 8 : 16;
            if (alt && base == 16 && v) {
                put(&o, '0');
                put(&o, *fmt == 'X' ? 'X' : 'x');
                width = width > 2 ? width - 2 : 0;
            }
            put_num(&o, v, 0, base, *fmt == 'X', width, prec, left, pad, 0);
            break;
        }
        case 'p':
            put(&o, '0');
            put(&o, 'x');
            put_num(&o, (uint64_t)(uintptr_t)va_arg(ap, void *), 0, 16, 0, 8, 0, 0, '0', 0);
            break;
        case 'f':
        case 'F': {
            double v = va_arg(ap, double);
            if (prec < 0) prec = 6;
            if (prec > 9) prec = 9;
            int neg = v < 0;
            if (neg) v = -v;
            uint64_t scale = 1;
            for (int i = 0; i < prec; i++) scale *= 10;
            uint64_t whole = (uint64_t)v;
            uint64_t frac = (uint64_t)((v - (double)whole) * (double)scale + 0.5);
            if (frac >= scale) whole++, frac -= scale;
            int fw = width - (prec ? prec + 1 : 0);
            put_num(&o, whole, neg, 10, 0, fw > 0 ? fw : 0, -1, left, pad, sign);
            if (prec) {
                put(&o, '.');
                put_num(&o, frac, 0, 10, 0, 0, prec, 0, ' ', 0);
            }
            break;
        }
        case 'c':
            put(&o, (char)va_arg(ap, int));
            break;
        case 's': {
            const char *s = va_arg(ap, const char *);
            if (!s) s = "(null)";
            int n = (int)strlen(s);
            if (prec >= 0 && n > prec) n = prec;
            if (!left)
                for (int w = n; w < width; w++) put(&o, ' ');
            for (int i = 0; i < n; i++) put(&o, s[i]);
            if (left)
                for (int w = n; w < width; w++) put(&o, ' ');
            break;
        }
        case '%':
            put(&o, '%');
            break;
        default:
            put(&o, '%');
            if (*fmt) put(&o, *fmt);
            else fmt--;
            break;
        }
    }
    if (size) buf[o.len < size ? o.len : size - 1] = 0;
    return (int)o.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n;
}

static void tty_out(const char *s, size_t n)
{
    unsigned int written;
    while (n) {
        unsigned int chunk = n > 0x4000 ? 0x4000 : (unsigned int)n;
        if (sys_tty_write(SYS_TTY_CHANNEL_STDOUT, s, chunk, &written) != 0 || written == 0) return;
        s += written;
        n -= written;
    }
}

int printf(const char *fmt, ...)
{
    char small[512];
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof small) {
        tty_out(small, (size_t)n);
    } else if (n >= 0) {
        char big[4096];
        int m = vsnprintf(big, sizeof big, fmt, ap2);
        tty_out(big, (size_t)(m < (int)sizeof big ? m : (int)sizeof big - 1));
    }
    va_end(ap2);
    return n;
}

int puts(const char *s)
{
    tty_out(s, strlen(s));
    tty_out("\n", 1);
    return 0;
}

int putchar(int c)
{
    char ch = (char)c;
    tty_out(&ch, 1);
    return c;
}
