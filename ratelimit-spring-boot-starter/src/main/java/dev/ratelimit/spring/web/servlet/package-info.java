/**
 * Spring MVC: the servlet filter that decides rules and handler limits, and annotated calls on the request's thread.
 */
@NullMarked
package dev.ratelimit.spring.web.servlet;

import org.jspecify.annotations.NullMarked;
